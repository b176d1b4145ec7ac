-- Reference launcher: zeroed bins, one full wave of blocks.
local BLOCK = 256
return function(gpu, k, args)
  args.bins:fill(0)
  local dev = gpu.device()
  local blocks = dev.sms * (dev.max_threads_per_sm // BLOCK)
  gpu.launch(k.histogram, { grid = blocks, block = BLOCK }, args.data, args.n, args.bins)
end
