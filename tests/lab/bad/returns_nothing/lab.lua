-- expect: the file must end with `return lab { ... }`
lab {
  id = "returns_nothing", title = "Forgot the return",
  steps = { step "One" [[ text ]] },
}
