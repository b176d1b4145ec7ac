-- expect: attempt to call a nil value (global 'require')
-- line: 3
local x = require("io")
