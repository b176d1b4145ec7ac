-- expect: attempt to modify a read-only table
-- line: 4
local iter, state = pairs(string)
rawset(state, "rep", nil)
