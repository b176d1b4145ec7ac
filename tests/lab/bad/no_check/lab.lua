-- expect: milestone 'within2x' has no check function
-- line: 8
return lab {
  id = "no_check", title = "Milestone without a check",
  problem = "sgemm", sizes = { "1024x1024x1024" },
  steps = { step "One" [[ text ]] },
  milestones = {
    milestone { id = "within2x", text = "Within 2x of cuBLAS" },
  },
}
