-- expect: string.gmatch: the pattern takes too long
-- line: 3
local function words(s) local t = {} for w in s:gmatch(".-.-.-.-.-.-.-.-.-y") do t[#t+1] = w end return t end
return words(string.rep("x", 30))
