-- Launcher of the racing tree sum (starter.cu): blocks of 256 threads, one
-- element a thread, the block sums added into the zeroed output.

local BLOCK = 256

return function(gpu, k, args)
  args.output:fill(0)
  gpu.launch(k.reduce_sum, { grid = (args.n + BLOCK - 1) // BLOCK, block = BLOCK },
             args.input, args.output, args.n)
end
