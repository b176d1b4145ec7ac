-- expect: script exceeded its memory limit of 64 MiB
-- line: 4
local t = {}
for i = 1, 1e9 do t[i] = i end
