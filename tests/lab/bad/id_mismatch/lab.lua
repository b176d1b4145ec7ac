-- expect: lab 'something_else' is in folder 'id_mismatch': a lab's id must match its folder name
-- line: 3
return lab {
  id = "something_else", title = "Id differs from the folder",
  steps = { step "One" [[ text ]] },
}
