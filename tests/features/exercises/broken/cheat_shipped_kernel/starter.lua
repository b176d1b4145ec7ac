-- Expected diagnosis: not_own (a shipped kernel is refused in an exercise launcher).
-- Problem reduce_sum; any size.
-- A launcher that hands the work to one of cudalab's own kernels instead of
-- the learner's: refused, so the row is not counted as the learner's.
return function(gpu, k, args)
  local threads = 256
  local blocks = (args.n + threads - 1) // threads
  gpu.launch("reduce_vectorized", { grid = blocks, block = threads }, args.input, args.output, args.n)
end
