-- brent_kung.lua - launches rung 2 (brent_kung.cu) in levels, like rung 1:
-- scan the tiles and write their totals, scan the totals the same way, add
-- each tile's scanned total to the next tile.  Same tiles of 1024 elements,
-- same passes over memory as rung 1: only the work inside a block changed.

local THREADS = 512           -- a power of two; a tile is twice as many elements
local TILE = 2 * THREADS

local function ceil_div(a, b)
  return (a + b - 1) // b
end

local function padded(count)  -- PADDED() of brent_kung.cu: one spare word per 32
  return count + count // 32
end

local totals = {}             -- one scratch buffer a level, kept between calls

local function scan(gpu, k, src, dst, count, level)
  local tiles = ceil_div(count, TILE)
  if totals[level] == nil or #totals[level] < tiles then
    totals[level] = gpu.alloc(tiles)
  end
  local sums = totals[level]
  gpu.launch(k.scan_block, { grid = tiles, block = THREADS, shared = padded(TILE) * 4 },
             src, dst, sums, count)
  if tiles > 1 then
    scan(gpu, k, sums, sums, tiles, level + 1)
    gpu.launch(k.add_offsets, { grid = tiles - 1, block = THREADS }, dst, sums, count)
  end
end

return function(gpu, k, args)
  scan(gpu, k, args.input, args.output, args.n, 1)
end
