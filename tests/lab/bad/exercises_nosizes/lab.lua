-- expect: exercise 'mm' needs sizes
-- line: 7
return lab {
  id = "exercises_nosizes", title = "An exercise of another problem without sizes",
  problem = "reduce_sum", sizes = { "2^20" }, steps = { step "One" [[ text ]] },
  exercises = {
    exercise { id = "mm", problem = "sgemm", kernel = "a.cu", launcher = "a.lua" },
  },
}
