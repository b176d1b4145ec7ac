-- expect: exercise: size '1048576' is not "ROWSxFEATURES"
-- line: 5
return lab {
  id = "pipeline_bad_size", title = "A table without columns", problem = "profiling",
  exercise = exercise { sizes = { "1048576" }, kernel = "starter.cu", launcher = "starter.lua" },
  steps = { step "One" [[ text ]] },
}
