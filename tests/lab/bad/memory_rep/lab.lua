-- expect: script exceeded its memory limit of 64 MiB
-- line: 3
local s = string.rep("x", 1 << 30)
