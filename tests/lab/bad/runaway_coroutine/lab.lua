-- expect: script ran longer than 500 ms
local spin = coroutine.wrap(function() while true do end end)
spin()
