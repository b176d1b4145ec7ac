-- expect: problem 'embedding' needs at least one size
-- line: 3
return lab {
  id = "no_sizes", title = "Problem without sizes", problem = "embedding",
  steps = { step "One" [[ text ]] },
}
