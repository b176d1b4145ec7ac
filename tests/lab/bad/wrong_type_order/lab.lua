-- expect: lab 'wrong_type_order': field 'order' must be an integer, got string
-- line: 3
return lab {
  id = "wrong_type_order", title = "Order as text", order = "first",
  steps = { step "One" [[ text ]] },
}
