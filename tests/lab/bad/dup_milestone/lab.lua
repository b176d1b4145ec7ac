-- expect: duplicate milestone id 'fast'
-- line: 9
return lab {
  id = "dup_milestone", title = "Two milestones with one id",
  problem = "reduce_sum", sizes = { "2^20" },
  steps = { step "One" [[ text ]] },
  milestones = {
    milestone { id = "fast", text = "Fast", check = checks.at_least("speedup_cpu", 10, "x") },
    milestone { id = "fast", text = "Faster", check = checks.at_least("speedup_cpu", 100, "x") },
  },
}
