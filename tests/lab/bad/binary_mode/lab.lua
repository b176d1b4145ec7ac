-- expect: only text chunks are allowed
-- line: 5
local f, msg = load("return 1", "chunk", "b")
if f then return lab { id = "binary_mode", title = "Escaped", steps = { step "s" [[b]] } } end
error(msg)
