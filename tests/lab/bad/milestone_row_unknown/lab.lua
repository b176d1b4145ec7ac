-- expect: milestone 'near' compares with row 'sequentail', which the lab does not measure (its rows: seq, cpu, cpu_mt, cub)
-- line: 11
return lab {
  id = "milestone_row_unknown", title = "A milestone that compares with a row no run has",
  problem = "reduce_sum", library = "cub", sizes = { "2^20" },
  steps = { step "One" [[ text ]] },
  variants = {
    variant { id = "seq", title = "Sequential", kernel = "reduce_sequential" },
  },
  milestones = {
    milestone { id = "near", text = "Near the sequential rung",
                check = checks.all(checks.correct(), checks.speedup_over("sequentail", 0.5)) },
  },
}
