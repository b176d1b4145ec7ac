-- expect: string.dump is not available in lab files
-- line: 3
local bytes = string.dump(function() end)
