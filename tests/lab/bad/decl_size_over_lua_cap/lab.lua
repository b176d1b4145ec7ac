-- expect: at size 2^22 the buffers hold 8388608 elements: a Lua reference runs only where they hold at most 2^22
-- line: 19
-- A size too large for the problem's Lua reference is reported at the
-- size's own line, not at the problem's.
return lab {
  id = "decl_size_over_lua_cap", title = "A size past the Lua reference's cap", order = 90,
  problem = problem {
    dims = { "n" },
    args = {
      { name = "x", type = "f32", length = "n", fill = { "uniform", 1, 2 } },
      { name = "y", type = "f32", length = "n", output = { rel = 1e-6 } },
      { name = "n", type = "i64", value = "n" },
    },
    reference = function(a)
      for i = 0, a.n - 1 do a.y[i] = a.x[i] * 2 end
    end,
  },
  sizes = { "2^10",
            "2^22" },
  steps = { step "Only step" [[ text ]] },
}
