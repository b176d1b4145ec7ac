-- expect: exercise: a 'profiling' lab's exercise needs sizes
-- line: 5
return lab {
  id = "profiling_exercise_nosizes", title = "Experiments and an exercise", problem = "profiling",
  exercise = exercise { kernel = "starter.cu", launcher = "starter.lua" },
  steps = { step "One" [[ text ]] },
}
