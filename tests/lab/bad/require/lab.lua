-- expect: 'require' is not available in lab files (the sandbox allows:
-- line: 3
local x = require("io")
