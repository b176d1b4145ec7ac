-- expect: 'io' is not available in lab files (the sandbox allows:
-- line: 3
local f = io.open("/etc/passwd")
