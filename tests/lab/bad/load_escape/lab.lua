-- expect: escape blocked
-- line: 6
local f = load("return getmetatable(_ENV)")
local reached = pcall(load("return io or debug or require"))
if type(f()) == "table" or reached then return lab { id = "load_escape", title = "Escaped", steps = { step "s" [[b]] } } end
error("escape blocked")
