-- Reference launcher: x and y prefetched to the GPU in bulk before the
-- kernel, in order on the launcher's stream.
local BLOCK = 256
return function(gpu, k, args)
  local dev = gpu.device()
  local blocks = dev.sms * (dev.max_threads_per_sm // BLOCK)
  gpu.prefetch(args.x)
  gpu.prefetch(args.y)
  gpu.launch(k.saxpy, { grid = blocks, block = BLOCK }, args.n, args.a, args.x, args.y, args.z)
end
