-- expect: lab 'missing_title': missing required field 'title'
-- line: 3
return lab {
  id = "missing_title",
  steps = { step "One" [[ text ]] },
}
