-- expect: variant 'flops': no experiment 'flops' (known: transfers, overlap
-- line: 7
return lab {
  id = "profiling_experiment", title = "An experiment the worker lacks", problem = "profiling",
  steps = { step "One" [[ text ]] },
  variants = {
    variant { id = "flops", title = "FLOPs" },
  },
}
