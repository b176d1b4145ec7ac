-- expect: script ran longer than 500 ms
local forever = checks.all(function() while true do end end)
forever({})
