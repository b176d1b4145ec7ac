-- expect: milestone 'custom': needs is a list of row ids (strings), entry 2 is a number
-- line: 11
return lab {
  id = "milestone_needs_type", title = "needs that is not a list of row ids",
  problem = "reduce_sum", sizes = { "2^20" },
  steps = { step "One" [[ text ]] },
  variants = {
    variant { id = "seq", title = "Sequential", kernel = "reduce_sequential" },
  },
  milestones = {
    milestone { id = "custom", text = "Custom", needs = { "seq", 2 },
                check = function(r) return r.variants.seq ~= nil end },
  },
}
