-- expect: lab 'unknown_problem': unknown problem 'sort'
-- line: 3
return lab {
  id = "unknown_problem", title = "Problem the engine lacks",
  problem = "sort", sizes = { "2^20" },
  steps = { step "One" [[ text ]] },
}
