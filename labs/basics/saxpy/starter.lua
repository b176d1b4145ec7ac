-- starter.lua - launches your saxpy kernel (starter.cu).
--
-- cudalab calls the function returned at the end once per run:
--   gpu   the GPU API (lua/gpu.md)
--   k     your compiled kernels by name: k.saxpy
--   args  args.x, args.y (n floats each), args.z (n floats, poisoned),
--         args.a (a number), args.n
-- The first call of each size checks the result and is never timed; later
-- calls are timed, and everything they launch counts.  lua/exercise.md has
-- the details.

local BLOCK = 256             -- threads a block: a multiple of 32, at most 1024

return function(gpu, k, args)
  -- One block: every element is computed, but by 256 threads on one SM.
  -- Try (args.n + BLOCK - 1) // BLOCK blocks, or gpu.device().sms times the
  -- blocks an SM holds with a grid-stride loop in the kernel.
  local blocks = 1
  gpu.launch(k.saxpy, { grid = blocks, block = BLOCK }, args.n, args.a, args.x, args.y, args.z)
end
