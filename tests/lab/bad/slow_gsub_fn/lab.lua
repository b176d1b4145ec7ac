-- expect: string.gsub: the pattern takes too long on a 28-byte string
-- line: 6
local n = 0
local ok, msg = pcall(function()
  -- the learner catches the error: the message still names the line
  return (string.rep("a", 28)):gsub(".-.-.-.-.-.-.-.-.-.-c", function() n = n + 1 end)
end)
error(msg, 0)
