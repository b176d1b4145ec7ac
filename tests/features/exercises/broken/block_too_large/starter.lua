-- Expected diagnosis: launch_config (block of 2048 threads: the limit is 1024 per block).
-- A block may hold at most 1024 threads.  Problem reduce_sum; any size.

local BLOCK = 2048

local function ceil_div(a, b)
  return (a + b - 1) // b
end

local ping, pong

return function(gpu, k, args)
  local first = ceil_div(args.n, BLOCK)
  if first > 1 and (ping == nil or #ping < first) then
    ping = gpu.alloc(first)
    pong = gpu.alloc(ceil_div(first, BLOCK))
  end
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
