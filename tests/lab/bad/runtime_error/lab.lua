-- expect: attempt to perform arithmetic on a nil value (global 'undefined_thing')
-- line: 3
local n = undefined_thing + 1
return lab { id = "runtime_error", title = "T", steps = { step "s" [[b]] } }
