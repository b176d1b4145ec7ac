-- Launcher of the divergent-barrier sum (starter.cu): one thread an element,
-- blocks of 256.

local BLOCK = 256

return function(gpu, k, args)
  args.output:fill(0)
  gpu.launch(k.reduce_sum, { grid = (args.n + BLOCK - 1) // BLOCK, block = BLOCK },
             args.input, args.output, args.n)
end
