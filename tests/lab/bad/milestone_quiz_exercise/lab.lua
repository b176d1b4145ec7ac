-- expect: milestone 'm': a quiz belongs to no exercise: leave out exercise
-- line: 10
return lab {
  id = "milestone_quiz_exercise", title = "A quiz milestone naming an exercise",
  problem = "reduce_sum", sizes = { "2^20" }, steps = { step "One" [[ text ]] },
  exercises = { exercise { id = "a", kernel = "a.cu", launcher = "a.lua" } },
  quizzes = { quiz { id = "q", question = "Q?", choices = {
    { text = "a", correct = true, feedback = "yes" }, { text = "b", feedback = "no" } } } },
  milestones = {
    milestone { id = "m", text = "M", exercise = "a", quiz = "q" },
  },
}
