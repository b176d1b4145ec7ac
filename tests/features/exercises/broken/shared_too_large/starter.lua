-- Expected diagnosis: launch_config (shared memory of 1048576 bytes: the limit is the
-- device's per-block maximum, 232448 bytes on an H100).  The shared size is in bytes,
-- and this launcher multiplies by 1024 instead of by 4.  Problem reduce_sum; any size.

local BLOCK = 256

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
    gpu.launch(k.reduce_sum, { grid = blocks, block = BLOCK, shared = BLOCK * 1024 * 4 },
               src, dst, count)
    if blocks == 1 then
      return
    end
    src, count, pass = dst, blocks, pass + 1
  end
end
