-- Launcher of the off-by-one sum (starter.cu): one thread an element, plus
-- the one past the end that the kernel should not read.

local BLOCK = 256

return function(gpu, k, args)
  args.output:fill(0)
  gpu.launch(k.reduce_sum, { grid = args.n // BLOCK + 1, block = BLOCK },
             args.input, args.output, args.n)
end
