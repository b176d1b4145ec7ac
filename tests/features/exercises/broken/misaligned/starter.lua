-- Expected diagnosis: memory_access (misaligned address).  Problem reduce_sum; size 2^20.

return function(gpu, k, args)
  args.output:fill(0)
  local threads = (args.n - 1) // 4 + 1
  gpu.launch(k.reduce_sum, { grid = (threads + 255) // 256, block = 256 },
             args.input, args.output, args.n)
end
