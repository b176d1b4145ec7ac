-- expect: lab: missing required field 'id'
-- line: 3
return lab {
  title = "No id",
  steps = { step "One" [[ text ]] },
}
