-- expect: cannot change a protected metatable
-- line: 3
setmetatable(checks, {})
