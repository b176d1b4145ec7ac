-- expect: attempt to index a nil value (global 'io')
-- line: 3
local f = io.open("/etc/passwd")
