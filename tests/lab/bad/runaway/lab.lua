-- expect: script ran longer than 500 ms (infinite loop?)
-- line: 4
local n = 0
while true do n = n + 1 end
