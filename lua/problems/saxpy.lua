-- saxpy: z = a x + y over n floats (the basics lab; lua/problems.md).
-- a depends on n only, so the shipped rungs, the learner's args.a and the
-- reference agree at every size.
return problem {
  name = "saxpy",
  dims = { "n" },
  limits = { n = { 1, "2^30" } },
  args = {
    { name = "x", type = "f32", length = "n", fill = { "uniform", -1, 1 } },
    { name = "y", type = "f32", length = "n", fill = { "uniform", -1, 1 } },
    { name = "z", type = "f32", length = "n", output = { rel = 1e-5 } },
    { name = "a", type = "f32", value = function(s) return 0.5 + 0.25 * (s.n % 7) end },
    { name = "n", type = "i64", value = "n" },
  },
  builtin = { "saxpy", x = "x", y = "y", z = "z", a = "a", n = "n" },
  reference = "builtin",
  cpu = "builtin",
  library = "copy",
  bytes = function(s) return 12 * s.n end,  -- x and y read, z written
  flops = function(s) return 2 * s.n end,   -- a multiply and an add a value
}
