-- kogge_stone.lua - launches rung 1 (kogge_stone.cu) in levels.
--
-- Level 0 scans the input block by block into the output and writes one
-- total a block.  Those totals are a smaller scan problem: the same kernel
-- scans them in place (level 1), and so on until one block is enough.  On
-- the way back, add_offsets adds each block's scanned total to the block
-- after it.  At 2^28 with 1024-element blocks: 262144 totals, then 256,
-- then 1.
--
-- Memory: the input is read and the output written by scan_block, then the
-- output is read and written again by add_offsets: 16 bytes an element where
-- a copy moves 8.

local BLOCK = 1024            -- elements (and threads) a block: a power of two

local function ceil_div(a, b)
  return (a + b - 1) // b
end

-- One scratch buffer a level, allocated on the first (untimed) call and
-- reallocated only when a larger size needs more.
local totals = {}

local function scan(gpu, k, src, dst, count, level)
  local blocks = ceil_div(count, BLOCK)
  if totals[level] == nil or #totals[level] < blocks then
    totals[level] = gpu.alloc(blocks)
  end
  local sums = totals[level]
  gpu.launch(k.scan_block, { grid = blocks, block = BLOCK, shared = 2 * BLOCK * 4 },
             src, dst, sums, count)
  if blocks > 1 then
    scan(gpu, k, sums, sums, blocks, level + 1)     -- in place: sums becomes inclusive
    gpu.launch(k.add_offsets, { grid = blocks - 1, block = BLOCK }, dst, sums, count)
  end
end

return function(gpu, k, args)
  scan(gpu, k, args.input, args.output, args.n, 1)
end
