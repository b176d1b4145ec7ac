-- expect: attempt to load a binary chunk
-- line: 6
assert(not pcall(function() return string.dump end))
local f, msg = load("\27Lua\84\0\25\147\13\10\26\10")
if f then return lab { id = "binary_load", title = "Escaped", steps = { step "s" [[b]] } } end
error(msg)
