-- expect: lab 'profiling_sizes': problem 'profiling' takes no sizes
-- line: 3
return lab {
  id = "profiling_sizes", title = "Experiments with sizes", problem = "profiling",
  sizes = { "2^20" },
  steps = { step "One" [[ text ]] },
}
