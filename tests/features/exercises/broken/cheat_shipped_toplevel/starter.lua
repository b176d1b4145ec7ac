-- Expected diagnosis: not_own (refused when the launcher loads).
-- Problem reduce_sum; any size.
-- A launcher that takes a shipped kernel when it loads: refused at once.
local shipped = gpu.kernel("reduce_sequential")

return function(gpu, k, args)
  gpu.launch(shipped, { grid = 1, block = 256 }, args.input, args.output, args.n)
end
