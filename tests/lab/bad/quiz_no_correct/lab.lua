-- expect: quiz 'q' has no correct choice
-- line: 7
return lab {
  id = "quiz_no_correct", title = "Quiz without a right answer",
  steps = { step "One" [[ text ]] },
  quizzes = {
    quiz { id = "q", question = "Which?", choices = {
      { text = "a", feedback = "no" },
      { text = "b", feedback = "no" },
    } },
  },
}
