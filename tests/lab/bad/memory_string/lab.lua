-- expect: script exceeded its memory limit of 64 MiB
-- line: 4
local s = "x"
while true do s = s .. s end
