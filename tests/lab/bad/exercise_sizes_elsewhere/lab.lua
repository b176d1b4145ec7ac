-- expect: exercise: sizes belong to the lab (the exercise runs at the lab's sizes)
-- line: 5
return lab {
  id = "exercise_sizes_elsewhere", title = "Sizes in the wrong place", problem = "reduce_sum",
  sizes = { "2^20" }, exercise = exercise { sizes = { "2^10" }, kernel = "starter.cu",
                                            launcher = "starter.lua" },
  steps = { step "One" [[ text ]] },
}
