-- expect: exercise 'x' needs a problem (the lab's problem 'basics' is a set of experiments)
-- line: 6
return lab {
  id = "exercises_need_problem", title = "Basics without a problem", problem = "basics",
  steps = { step "One" [[ text ]] },
  exercises = { exercise { id = "x", kernel = "a.cu", launcher = "a.lua" } },
}
