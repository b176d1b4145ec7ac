-- expect: variant 'naive': unknown field 'kernal'
-- line: 8
return lab {
  id = "unknown_variant_field", title = "Typo in a variant",
  problem = "sgemm", sizes = { "1024x1024x1024" },
  steps = { step "One" [[ text ]] },
  variants = {
    variant { id = "naive", title = "Naive", kernal = "sgemm_naive" },
  },
}
