-- expect: escape blocked
-- line: 6
local f = load("return getmetatable(_ENV), io, debug, require")
local mt, io_, dbg, req = f()
if type(mt) == "table" or io_ or dbg or req then return lab { id = "load_escape", title = "Escaped", steps = { step "s" [[b]] } } end
error("escape blocked")
