return lab {
  id = "badfill",
  title = "A lab whose input fills cannot be drawn at its sizes",
  order = 93,
  problem = problem {
    dims = { "n" },
    limits = { n = { 1, "2^22" } },
    args = {
      { name = "x", type = "f32", length = "n", fill = { "uniform", 1, 0 } },
      { name = "w", type = "f32", length = "n",
        fill = function(n, size, seed) local t = {} for i = 1, n do t[i] = 1 end return t end },
      { name = "y", type = "f32", length = "n", output = { rel = 1e-6 } },
      { name = "n", type = "i64", value = "n" },
    },
    reference = function(a) for i = 0, a.n - 1 do a.y[i] = a.x[i] * a.w[i] end end,
  },
  sizes = { "2^10", "2^20+1" },
  steps = { step "Only step" [[ text ]] },
}
