-- expect: lab 'profiling_library': problem 'profiling' has no library baseline
-- line: 3
return lab {
  id = "profiling_library", title = "Experiments with a library", problem = "profiling",
  library = "copy",
  steps = { step "One" [[ text ]] },
}
