-- expect: exercise 'p': problem 'profiling' is a set of experiments, not a problem an exercise solves
-- line: 7
return lab {
  id = "exercises_experiments", title = "An exercise of experiments", problem = "reduce_sum",
  sizes = { "2^20" }, steps = { step "One" [[ text ]] },
  exercises = {
    exercise { id = "p", problem = "profiling", sizes = { "2^20" }, kernel = "a.cu", launcher = "a.lua" },
  },
}
