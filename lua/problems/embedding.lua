-- embedding: T rows of D floats looked up in a table of V rows, as at the
-- front of a language model (the embedding lab; lua/problems.md).  Checked
-- exactly: a copy has no rounding.
return problem {
  name = "embedding",
  dims = { "T", "D", "V" },
  limits = { T = { 1, "2^30" }, D = { 1, "2^30" }, V = { 1, "2^30" } },
  valid = function(s)
    if s.T * s.D > 1 << 30 then return false, "the output T x D would have more than 2^30 elements" end
    if s.V * s.D > 1 << 30 then return false, "the table V x D would have more than 2^30 elements" end
    return true
  end,
  args = {
    { name = "W", type = "f32", length = function(s) return s.V * s.D end, fill = { "uniform", -1, 1 } },
    { name = "idx", type = "i32", length = "T", fill = { "integers", 0, function(s) return s.V - 1 end } },
    { name = "out", type = "f32", length = function(s) return s.T * s.D end, output = "exact" },
    { name = "T", type = "i64", value = "T" },
    { name = "D", type = "i64", value = "D" },
    { name = "V", type = "i64", value = "V" },
  },
  builtin = { "gather", W = "W", idx = "idx", out = "out", T = "T", D = "D", V = "V" },
  reference = "builtin",
  cpu = "builtin",
  library = "copy",
  -- each output row read from the table and written, and the indices read
  bytes = function(s) return 8 * s.T * s.D + 4 * s.T end,
  hints = {
    buffers = "W holds V*D floats, idx holds T ints and out holds T*D floats",
    wrong = "Output row t is row idx[t] of W: out[t * D + d] = W[idx[t] * D + d].  Check that "
         .. "you multiply the looked-up index, not t, by D.",
  },
}
