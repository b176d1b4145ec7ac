-- expect: variant 'naive': missing required field 'kernel'
-- line: 8
return lab {
  id = "missing_kernel", title = "Variant without a kernel",
  problem = "reduce_sum", sizes = { "2^20" },
  steps = { step "One" [[ text ]] },
  variants = {
    variant { id = "naive", title = "Naive" },
  },
}
