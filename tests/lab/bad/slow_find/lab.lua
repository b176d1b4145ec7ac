-- expect: string.find: the pattern takes too long on a 30-byte string
-- line: 4
local s = string.rep("a", 30)
local where = string.find(s, ".-.-.-.-.-.-.-.-.-.-b")
return lab { id = "slow_find", title = "x", sizes = {"1"}, steps = {{title = "a", body = "b"}} }
