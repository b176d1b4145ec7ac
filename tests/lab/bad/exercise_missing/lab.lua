-- expect: exercise: file 'starter.cu' not found
-- line: 7
return lab {
  id = "exercise_missing", title = "Exercise files absent", problem = "reduce_sum",
  sizes = { "2^20" },
  steps = { step "One" [[ text ]] },
  exercise = exercise { kernel = "starter.cu", launcher = "starter.lua" },
}
