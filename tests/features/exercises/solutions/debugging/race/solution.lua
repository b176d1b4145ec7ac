-- starter.lua - launches the block sum (starter.cu): one thread an element,
-- blocks of 256 (the kernel's shared array holds 256 floats).
--
-- cudalab calls the function returned at the end once per run:
--   gpu   the GPU API (lua/gpu.md)
--   k     your compiled kernels by name: k.reduce_sum
--   args  args.input (n floats), args.output (1 float, poisoned), args.n
-- The launcher is right; the bug is in the kernel.

local BLOCK = 256

return function(gpu, k, args)
  args.output:fill(0)         -- the blocks add into it
  local blocks = (args.n + BLOCK - 1) // BLOCK
  gpu.launch(k.reduce_sum, { grid = blocks, block = BLOCK }, args.input, args.output, args.n)
end
