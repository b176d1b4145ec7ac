-- expect: script exceeded its memory limit of 64 MiB
local s = string.rep("x", 1 << 30)
