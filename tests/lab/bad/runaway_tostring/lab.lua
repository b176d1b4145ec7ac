-- expect: script ran longer than 500 ms
error(setmetatable({}, { __tostring = function() while true do end end }))
