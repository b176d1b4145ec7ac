-- expect: lab 'bad id!': id 'bad id!' must be at most 63 letters
-- line: 3
return lab {
  id = "bad id!", title = "Id with spaces",
  steps = { step "One" [[ text ]] },
}
