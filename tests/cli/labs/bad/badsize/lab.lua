return lab {
  id = "badsize",
  title = "A lab with a size the engine cannot read",
  order = 92,
  problem = "sgemm",
  sizes = { "12x12x12", "twelve" },
  steps = { step "Only step" [[ text ]] },
}
