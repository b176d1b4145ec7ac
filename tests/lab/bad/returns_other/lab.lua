-- expect: the file must end with `return lab { ... }` (it returned a table)
return {
  id = "returns_other", title = "A plain table",
  steps = { step "One" [[ text ]] },
}
