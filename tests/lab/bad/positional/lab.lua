-- expect: has a value without a name
-- line: 3
return lab {
  "positional", title = "A value without a name",
  steps = { step "One" [[ text ]] },
}
