-- Expected diagnosis: wrong.  Problem reduce_sum; size 2^20.

local BLOCK = 256

return function(gpu, k, args)
  gpu.launch(k.reduce_sum, { grid = (args.n + BLOCK - 1) // BLOCK, block = BLOCK,
                             shared = BLOCK * 4 },
             args.input, args.output, args.n)
end
