-- expect: milestone 'both' has both a check function and a quiz
-- line: 9
return lab {
  id = "check_and_quiz", title = "Milestone with a check and a quiz",
  steps = { step "One" [[ text ]] },
  quizzes = { quiz { id = "q", question = "?", choices = {
    { text = "a", correct = true, feedback = "yes" }, { text = "b", feedback = "no" } } } },
  milestones = {
    milestone { id = "both", text = "Both", quiz = "q", check = function() return true end },
  },
}
