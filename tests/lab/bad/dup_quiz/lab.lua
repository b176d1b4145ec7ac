-- expect: duplicate quiz id 'q'
-- line: 4
local function q()
  return quiz { id = "q", question = "Pick one",
    choices = { { text = "a", correct = true, feedback = "yes" }, { text = "b", feedback = "no" } } }
end
return lab {
  id = "dup_quiz", title = "Two quizzes with one id",
  steps = { step "One" [[ text ]] },
  quizzes = { q(), q() },
}
