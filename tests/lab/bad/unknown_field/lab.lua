-- expect: lab 'unknown_field': unknown field 'sizez' (did you mean 'sizes'?)
-- line: 3
return lab {
  id = "unknown_field", title = "Typo in a field name",
  problem = "sgemm", sizes = { "1024x1024x1024" },
  sizez = { "4096x4096x4096" },
  steps = { step "One" [[ text ]] },
}
