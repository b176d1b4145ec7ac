-- expect: exercise: the exercise of a 'profiling' lab solves 'pipeline', not 'sgemm'
-- line: 5
return lab {
  id = "profiling_exercise_problem", title = "Experiments and a matmul", problem = "profiling",
  exercise = exercise { problem = "sgemm", sizes = { "1024x16" }, kernel = "starter.cu",
                        launcher = "starter.lua" },
  steps = { step "One" [[ text ]] },
}
