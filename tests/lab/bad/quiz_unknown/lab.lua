-- expect: milestone 'explain' names quiz 'nope', but the lab has no such quiz
-- line: 7
return lab {
  id = "quiz_unknown", title = "Milestone naming a missing quiz",
  steps = { step "One" [[ text ]] },
  milestones = {
    milestone { id = "explain", text = "Can explain it", quiz = "nope" },
  },
}
