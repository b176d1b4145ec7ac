-- expect: __gc metamethods are not allowed in labs
-- line: 3
setmetatable({}, { __gc = function() while true do end end })
