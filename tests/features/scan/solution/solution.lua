-- solution.lua - launches the reference scan (solution.cu): one launch of
-- ceil(n / 4096) blocks of 512 threads, after zeroing the tiles' status
-- words and the tile counter (one scratch buffer, kept between calls).

local THREADS = 512
local TILE = 4096

local scratch

return function(gpu, k, args)
  local tiles = (args.n + TILE - 1) // TILE
  local ints = 2 * tiles + 1                    -- a 64-bit word a tile, then the counter
  if scratch == nil or #scratch < ints then
    scratch = gpu.alloc(ints, "i32")
  end
  scratch:view(0, ints):fill(0)
  gpu.launch(k.scan_onepass, { grid = tiles, block = THREADS },
             args.input, args.output, scratch, scratch:view(2 * tiles, 1), args.n)
end
