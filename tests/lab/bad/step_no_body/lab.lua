-- expect: step 2 has a title but no body
-- line: 3
return lab {
  id = "step_no_body", title = "Curried step without its body",
  steps = {
    step "One" [[ text ]],
    step "Two",
  },
}
