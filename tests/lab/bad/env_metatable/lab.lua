-- expect: escape blocked
-- line: 8
local mt = getmetatable(_ENV)
if type(mt) == "table" and type(mt.__index) == "table" then
  rawset(mt.__index, "lab", nil)
  return lab { id = "env_metatable", title = "Escaped", steps = { step "s" [[b]] } }
end
error("escape blocked: " .. tostring(mt))
