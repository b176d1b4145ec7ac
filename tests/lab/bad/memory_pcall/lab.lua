-- expect: memory limit of 64 MiB
-- line: 7
local keep, kib = {}, string.rep("y", 1024)
local tries = 0
while tries < 1000 do
  tries = tries + 1
  pcall(function() keep[#keep + 1] = string.rep(kib, 1 << 13) end)
end
error("caught every memory error " .. #keep)
