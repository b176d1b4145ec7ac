-- expect: checks.at_least: the first argument must be a field name
-- line: 8
return lab {
  id = "check_args", title = "Helper called wrongly", problem = "reduce_sum",
  sizes = { "2^20" },
  steps = { step "One" [[ text ]] },
  milestones = {
    milestone { id = "m", text = "M", check = checks.at_least(100) },
  },
}
