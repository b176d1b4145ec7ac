-- expect: do not take tables with __len
-- line: 4
local t = setmetatable({}, { __len = function() return 1e15 end })
table.insert(t, 1, 'x')
