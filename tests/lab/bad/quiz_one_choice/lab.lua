-- expect: quiz 'q' needs at least two choices
-- line: 6
return lab {
  id = "quiz_one_choice", title = "Quiz with one choice",
  steps = { step "One" [[ text ]] },
  quizzes = { quiz { id = "q", question = "Which?", choices = { { text = "a", correct = true, feedback = "yes" } } } },
}
