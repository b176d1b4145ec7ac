-- expect: quiz 'q', choice 2: missing required field 'feedback'
-- line: 7
return lab {
  id = "quiz_no_feedback", title = "Quiz choice without feedback",
  steps = { step "One" [[ text ]] },
  quizzes = {
    quiz { id = "q", question = "Which?", choices = {
      { text = "a", correct = true, feedback = "yes" },
      { text = "b" },
    } },
  },
}
