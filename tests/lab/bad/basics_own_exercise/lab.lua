-- expect: problem 'basics' has no exercise
-- line: 6
return lab {
  id = "basics_own_exercise", title = "Basics with an exercise of its own", problem = "basics",
  steps = { step "One" [[ text ]] },
  exercise = exercise { kernel = "a.cu", launcher = "a.lua" },
}
