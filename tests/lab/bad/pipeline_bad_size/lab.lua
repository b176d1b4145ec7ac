-- expect: exercise: size '1048576x16' is not a number of table rows
-- line: 5
return lab {
  id = "pipeline_bad_size", title = "A table with columns it cannot choose", problem = "profiling",
  exercise = exercise { sizes = { "1048576x16" }, kernel = "starter.cu", launcher = "starter.lua" },
  steps = { step "One" [[ text ]] },
}
