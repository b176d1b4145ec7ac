-- expect: milestones entry 1 is a variant, not a milestone
-- line: 8
return lab {
  id = "wrong_kind", title = "A variant among the milestones",
  problem = "reduce_sum", sizes = { "2^20" },
  steps = { step "One" [[ text ]] },
  milestones = {
    variant { id = "v", title = "V", kernel = "reduce_sequential" },
  },
}
