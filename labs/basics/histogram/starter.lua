-- starter.lua - launches your histogram kernel (starter.cu).
--
-- cudalab calls the function returned at the end once per run:
--   gpu   the GPU API (lua/gpu.md)
--   k     your compiled kernels by name: k.histogram
--   args  args.data (the n bytes, four to an element: #args.data is
--         ceil(n / 4)), args.bins (256 counts, poisoned), args.n (bytes)
-- The first call of each size checks the result and is never timed; later
-- calls are timed, and everything they launch counts.  lua/exercise.md has
-- the details.

local BLOCK = 256

return function(gpu, k, args)
  args.bins:fill(0)           -- the kernel adds into the bins: zero them first
  -- One full wave of blocks; the kernel strides over the rest.
  local dev = gpu.device()
  local blocks = dev.sms * (dev.max_threads_per_sm // BLOCK)
  gpu.launch(k.histogram, { grid = blocks, block = BLOCK }, args.data, args.n, args.bins)
end
