-- expect: library 'cub' does not solve 'sgemm' (use 'cublas')
-- line: 3
return lab {
  id = "library_mismatch", title = "Wrong library", problem = "sgemm", library = "cub",
  sizes = { "1024x1024x1024" },
  steps = { step "One" [[ text ]] },
}
