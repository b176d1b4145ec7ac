-- expect: milestone 'm': size '2^22' is not one of the sizes it is judged at (256, 512)
-- line: 9
return lab {
  id = "milestone_size_unknown", title = "A milestone at a size its exercise does not run",
  problem = "reduce_sum", sizes = { "2^22" }, steps = { step "One" [[ text ]] },
  exercises = { exercise { id = "mm", problem = "sgemm", sizes = { "256", "512" },
                           kernel = "a.cu", launcher = "a.lua" } },
  milestones = {
    milestone { id = "m", text = "M", exercise = "mm", size = "2^22",
                check = checks.correct() },
  },
}
