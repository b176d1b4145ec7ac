-- expect: exercise: field 'kernel' must name a file inside the lab folder, got '../../x.cu'
-- line: 3
return lab {
  id = "exercise_escape", title = "Exercise outside the folder", problem = "reduce_sum",
  sizes = { "2^20" },
  steps = { step "One" [[ text ]] },
  exercise = { kernel = "../../x.cu", launcher = "starter.lua" },
}
