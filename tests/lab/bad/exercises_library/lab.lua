-- expect: exercise 'mm': library 'cub' does not solve 'sgemm' (use 'cublas')
-- line: 7
return lab {
  id = "exercises_library", title = "An exercise with the wrong library", problem = "reduce_sum",
  sizes = { "2^20" }, steps = { step "One" [[ text ]] },
  exercises = {
    exercise { id = "mm", problem = "sgemm", sizes = { "256" }, library = "cub", kernel = "a.cu", launcher = "a.lua" },
  },
}
