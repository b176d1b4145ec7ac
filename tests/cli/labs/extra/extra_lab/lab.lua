-- An instructor's lab kept outside the shipped folder (loaded with --labs).
return lab {
  id = "extra_lab",
  title = "An instructor's extra lab",
  order = 90,
  problem = "reduce_sum",
  -- the library row comes with the problem (lua/problems/)
  sizes = { "2^10" },
  steps = {
    step "Welcome" [[
This lab lives in an instructor's folder.
]],
  },
  variants = {
    variant { id = "naive", title = "Naive", kernel = "reduce_interleaved_divergent",
              why = "the first rung, reused" },
  },
}
