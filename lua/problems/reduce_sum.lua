-- reduce_sum: the sum of n floats (the reduction lab; lua/problems.md).
-- The builtin "sum" gives the double-precision (compensated) reference, the
-- vectorised CPU baselines, CUB's DeviceReduce::Sum and the shipped rungs.
return problem {
  name = "reduce_sum",
  dims = { "n" },
  limits = { n = { 1, "2^30" } },
  args = {
    { name = "input", type = "f32", length = "n", fill = { "uniform", 0, 1 } },
    { name = "output", type = "f32", length = 1, output = { rel = 1e-5 } },
    { name = "n", type = "i64", value = "n" },
  },
  builtin = { "sum", input = "input", output = "output", n = "n" },
  reference = "builtin",
  cpu = "builtin",
  library = "builtin",
  bytes = function(s) return 4 * s.n end,   -- every value read once
  flops = function(s) return s.n end,       -- one addition a value
  reads_only = true,
  hints = {
    buffers = "input holds n floats and output holds exactly 1",
    wrong = "For a sum over many blocks, each block's partial sum must reach the one output: "
         .. "add it with atomicAdd(out, partial) (plain out[0] = partial lets the last block "
         .. "win), or write partials and reduce them in a second launch.",
    nan = "If your kernel adds into the output with atomicAdd, zero it first in the launcher: "
       .. "args.output:fill(0) before gpu.launch.  Also make threads past the end put 0 into "
       .. "shared memory instead of skipping the write.",
  },
}
