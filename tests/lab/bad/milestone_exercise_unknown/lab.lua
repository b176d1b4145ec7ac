-- expect: milestone 'm' names exercise 'nope', but the lab has no such exercise (it has a)
-- line: 8
return lab {
  id = "milestone_exercise_unknown", title = "A milestone of an exercise that is not there",
  problem = "reduce_sum", sizes = { "2^20" }, steps = { step "One" [[ text ]] },
  exercises = { exercise { id = "a", kernel = "a.cu", launcher = "a.lua" } },
  milestones = {
    milestone { id = "m", text = "M", exercise = "nope", check = checks.correct() },
  },
}
