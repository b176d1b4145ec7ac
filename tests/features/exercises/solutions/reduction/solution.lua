-- solution.lua - launcher of the reference reduction (solution.cu).

local BLOCK = 256
local FINAL_BLOCK = 1024

local partials, max_blocks

return function(gpu, k, args)
  if partials == nil then
    local dev = gpu.device()
    max_blocks = dev.sms * (dev.max_threads_per_sm // BLOCK)   -- one full wave
    partials = gpu.alloc(max_blocks)
  end
  local vectors = args.n // 4
  local blocks = math.max(1, math.min(max_blocks, (vectors + BLOCK - 1) // BLOCK))
  gpu.launch(k.reduce_partials, { grid = blocks, block = BLOCK }, args.input, partials, args.n)
  gpu.launch(k.reduce_final, { grid = 1, block = FINAL_BLOCK }, partials, args.output, blocks)
end
