-- expect: exercise: the lab's own exercise takes no 'id'
-- line: 6
return lab {
  id = "exercise_own_id", title = "The lab's own exercise with an id", problem = "reduce_sum",
  sizes = { "2^20" }, steps = { step "One" [[ text ]] },
  exercise = exercise { id = "own", kernel = "a.cu", launcher = "a.lua" },
}
