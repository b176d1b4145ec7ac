-- expect: table.move: more than 2^24 elements
-- line: 3
local t = table.move({}, 1, 1e15, 1)
