-- expect: variant 'ghost': no shipped kernel named 'reduce_ghost'
-- line: 8
return lab {
  id = "shipped_kernel_unknown", title = "A variant naming no shipped kernel",
  problem = "reduce_sum", sizes = { "2^20" },
  steps = { step "One" [[ text ]] },
  variants = {
    variant { id = "ghost", title = "Ghost", kernel = "reduce_ghost" },
  },
}
