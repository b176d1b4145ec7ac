-- Expected diagnosis: kernel_fault (a failed assert).  Problem reduce_sum; size 2^20.

return function(gpu, k, args)
  args.output:fill(0)
  gpu.launch(k.reduce_sum, { grid = (args.n + 255) // 256, block = 256 },
             args.input, args.output, args.n)
end
