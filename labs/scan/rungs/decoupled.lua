-- decoupled.lua - launches rung 4 (decoupled.cu): one launch, one block a
-- tile.  The status words (two ints a tile) and the ticket counter live in
-- one scratch buffer, zeroed before every launch: a word left over from the
-- previous call would tell a tile that its predecessors are already done.

local THREADS = 256           -- WARPS * 32 in decoupled.cu
local TILE = 4096             -- TILE in decoupled.cu

local function ceil_div(a, b)
  return (a + b - 1) // b
end

local state                   -- 2 * tiles ints of status, then the ticket

return function(gpu, k, args)
  local tiles = ceil_div(args.n, TILE)
  local words = 2 * tiles + 1
  if state == nil or #state < words then
    state = gpu.alloc(words, "i32")
  end
  state:view(0, words):fill(0)                 -- queued in order with the launch
  gpu.launch(k.scan_decoupled, { grid = tiles, block = THREADS },
             args.input, args.output, state, state:view(2 * tiles, 1), args.n)
end
