-- expect: duplicate variant id 'naive' (first defined at line 8)
-- line: 9
return lab {
  id = "dup_variant", title = "Two variants with one id",
  problem = "sgemm", sizes = { "1024x1024x1024" },
  steps = { step "One" [[ text ]] },
  variants = {
    variant { id = "naive", title = "Naive", kernel = "sgemm_naive" },
    variant { id = "naive", title = "Naive again", kernel = "sgemm_coalesced" },
  },
}
