-- expect: variant 'naive': field 'kernel' must be a string, got number
-- line: 8
return lab {
  id = "wrong_type", title = "Kernel given as a number",
  problem = "reduce_sum", sizes = { "2^20" },
  steps = { step "One" [[ text ]] },
  variants = {
    variant { id = "naive", title = "Naive", kernel = 42 },
  },
}
