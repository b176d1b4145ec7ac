-- expect: attempt to index a nil value (global 'debug')
-- line: 3
local info = debug.getinfo(1)
