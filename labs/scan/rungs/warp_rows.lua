-- warp_rows.lua - launches rung 3 (warp_rows.cu): reduce, scan the totals,
-- scan again.  Three launches whatever n is; 12 bytes of traffic an element.

local THREADS = 256           -- WARPS * 32 in warp_rows.cu
local TILE = 4096             -- TILE in warp_rows.cu
local TOTALS_THREADS = 1024   -- the single block that scans the tile totals

local function ceil_div(a, b)
  return (a + b - 1) // b
end

local sums                    -- one float a tile, kept between calls

return function(gpu, k, args)
  local tiles = ceil_div(args.n, TILE)
  if sums == nil or #sums < tiles then
    sums = gpu.alloc(tiles)
  end
  gpu.launch(k.tile_totals, { grid = tiles, block = THREADS }, args.input, sums, args.n)
  gpu.launch(k.scan_totals, { grid = 1, block = TOTALS_THREADS }, sums, tiles)
  gpu.launch(k.scan_tiles, { grid = tiles, block = THREADS },
             args.input, args.output, sums, args.n)
end
