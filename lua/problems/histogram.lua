-- histogram: 256 counts of the values of n bytes (the basics lab;
-- lua/problems.md).  The counts are checked exactly, and their poison makes
-- a bin no kernel wrote, or one added to without zeroing, show.
return problem {
  name = "histogram",
  dims = { "n" },
  limits = { n = { 1, "2^30" } },
  args = {
    { name = "data", type = "u8", length = "n", fill = { "integers", 0, 255 } },
    { name = "bins", type = "u32", length = 256, output = "exact" },
    { name = "n", type = "i64", value = "n" },
  },
  builtin = { "histogram", data = "data", bins = "bins", n = "n" },
  reference = "builtin",
  cpu = "builtin",
  bytes = function(s) return s.n end,       -- the bytes read once; the bins are noise
}
