-- starter.lua - launches your reduce_sum kernel (starter.cu).
--
-- cudalab calls the function returned at the end once per run:
--   gpu   the GPU API (lua/gpu.md)
--   k     your compiled kernels by name: k.reduce_sum
--   args  args.input (n floats), args.output (1 float, poisoned), args.n
-- The first call of each size checks the result and is never timed; later
-- calls are timed, and everything they launch counts.  lua/exercise.md has
-- the details.

local BLOCK = 256             -- threads a block: a power of two, at most 1024

local function ceil_div(a, b)
  return (a + b - 1) // b
end

-- Scratch space for the partial sums, allocated on the first (untimed) call
-- and kept for the next ones.
local ping, pong

return function(gpu, k, args)
  local first = ceil_div(args.n, BLOCK)
  if first > 1 and (ping == nil or #ping < first) then
    ping = gpu.alloc(first)
    pong = gpu.alloc(ceil_div(first, BLOCK))
  end

  -- Pass 1 sums the input block by block into ping; each later pass sums
  -- the previous pass's partials, until a single block writes the output.
  local src, count = args.input, args.n
  local scratch = { ping, pong }
  local pass = 1
  while true do
    local blocks = ceil_div(count, BLOCK)
    local dst = blocks == 1 and args.output or scratch[(pass - 1) % 2 + 1]
    gpu.launch(k.reduce_sum, { grid = blocks, block = BLOCK, shared = BLOCK * 4 },
               src, dst, count)
    if blocks == 1 then
      return
    end
    src, count, pass = dst, blocks, pass + 1
  end
end
