-- expect: lab 'size_out_of_range': size '2^70'
-- line: 7
return lab {
  id = "size_out_of_range", title = "A size past what the engine reads",
  problem = "reduce_sum",
  sizes = {
    "2^20", "2^70",
  },
  steps = { step "One" [[ text ]] },
}
