-- starter.lua - launches the SAXPY (starter.cu): one thread an element.
--
-- cudalab calls the function returned at the end once per run:
--   gpu   the GPU API (lua/gpu.md)
--   k     your compiled kernels by name: k.saxpy
--   args  args.x, args.y (n floats each), args.z (n floats, poisoned),
--         args.a (a number), args.n
-- The launch is right: ceil(n / 256) blocks cover every element.  The bug is
-- in the kernel.

local BLOCK = 256

return function(gpu, k, args)
  local blocks = (args.n + BLOCK - 1) // BLOCK
  gpu.launch(k.saxpy, { grid = blocks, block = BLOCK }, args.n, args.a, args.x, args.y, args.z)
end
