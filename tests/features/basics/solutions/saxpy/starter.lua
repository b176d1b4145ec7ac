-- Reference launcher: one full wave of 256-thread blocks.
local BLOCK = 256
return function(gpu, k, args)
  local dev = gpu.device()
  local blocks = dev.sms * (dev.max_threads_per_sm // BLOCK)
  gpu.launch(k.saxpy, { grid = blocks, block = BLOCK }, args.n, args.a, args.x, args.y, args.z)
end
