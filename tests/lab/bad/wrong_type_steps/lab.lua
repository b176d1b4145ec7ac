-- expect: lab 'wrong_type_steps': field 'steps' must be a list, got table (with the key 'intro')
-- line: 3
return lab {
  id = "wrong_type_steps", title = "Steps keyed by name",
  steps = { intro = step "One" [[ text ]] },
}
