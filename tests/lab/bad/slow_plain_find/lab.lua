-- expect: string.find: the call takes too long
-- line: 5
local hay = string.rep("a", 1 << 24)
local needle = string.rep("a", 1 << 16) .. "b"
local at = hay:find(needle, 1, true)
return lab { id = "slow_plain_find", title = "x", sizes = {"1"}, steps = {{title = "a", body = "b"}} }
