-- solution.lua - launcher of the reference embedding gather (solution.cu).

local BLOCK = 256
local max_blocks

return function(gpu, k, args)
  if max_blocks == nil then
    local dev = gpu.device()
    max_blocks = dev.sms * (dev.max_threads_per_sm // BLOCK) * 4   -- a few waves
  end
  local kernel, items = k.embedding_scalar, args.T * args.D
  if args.D % 4 == 0 then
    kernel, items = k.embedding_vec4, args.T * (args.D // 4)
  end
  local blocks = math.max(1, math.min(max_blocks, (items + BLOCK - 1) // BLOCK))
  gpu.launch(kernel, { grid = blocks, block = BLOCK },
             args.W, args.idx, args.out, args.T, args.D, args.V)
end
