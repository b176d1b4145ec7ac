-- expect: escape blocked
-- line: 8
local mt = getmetatable("")
if type(mt) == "table" then
  mt.__index.rep = nil
  return lab { id = "string_metatable", title = "Escaped", steps = { step "s" [[b]] } }
end
error("escape blocked: " .. tostring(mt))
