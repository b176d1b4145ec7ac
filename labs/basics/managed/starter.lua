-- starter.lua - launches your saxpy kernel on managed memory (starter.cu).
--
-- cudalab calls the function returned at the end once per run:
--   gpu   the GPU API (lua/gpu.md)
--   k     your compiled kernels by name: k.saxpy
--   args  args.x, args.y (managed Buffers the CPU just wrote: x.where is
--         "managed"), args.z (device memory, poisoned), args.a, args.n
-- Each timed call includes whatever it takes to bring x and y to the GPU;
-- after the function returns cudalab waits for the whole device.  The
-- first call of each size is never timed: allocate there what you keep.

local BLOCK = 256

return function(gpu, k, args)
  local dev = gpu.device()
  local blocks = dev.sms * (dev.max_threads_per_sm // BLOCK)
  -- The kernel reads x and y where they are: in host memory.  Every first
  -- touch of a page faults, and the driver migrates it while the kernel
  -- waits.  gpu.prefetch(buf) moves a managed Buffer's pages to the GPU in
  -- one go, in order on this stream; gpu.copy into Buffers of your own
  -- copies them instead.
  gpu.launch(k.saxpy, { grid = blocks, block = BLOCK }, args.n, args.a, args.x, args.y, args.z)
end
