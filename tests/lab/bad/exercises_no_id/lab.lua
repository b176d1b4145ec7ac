-- expect: exercise 1: missing required field 'id' (a listed exercise needs one)
-- line: 6
return lab {
  id = "exercises_no_id", title = "A listed exercise without an id", problem = "reduce_sum",
  sizes = { "2^20" }, steps = { step "One" [[ text ]] },
  exercises = { exercise { kernel = "starter.cu", launcher = "starter.lua" } },
}
