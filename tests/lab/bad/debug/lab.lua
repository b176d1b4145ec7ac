-- expect: 'debug' is not available in lab files
-- line: 3
local info = debug.getinfo(1)
