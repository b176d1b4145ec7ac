return lab {
  id = "badkernel",
  title = "A lab naming a kernel that does not exist",
  order = 91,
  problem = "reduce_sum",
  sizes = { "2^10" },
  steps = { step "Only step" [[ text ]] },
  variants = {
    variant { id = "ghost", title = "Ghost", kernel = "reduce_does_not_exist", why = "typo" },
  },
}
