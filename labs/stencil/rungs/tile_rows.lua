-- tile_rows.lua - launches rung 4 (tile_rows.cu): blocks of exactly 32 x 8
-- threads, each block a patch of 32 columns and 8 * 8 = 64 rows.

local BX, BY = 32, 8
local ROWS_PER_BLOCK = BY * 8  -- OUT_H in tile_rows.cu: 8 rows a thread

local function ceil_div(a, b)
  return (a + b - 1) // b
end

return function(gpu, k, args)
  gpu.launch(k.conv5x5,
             { grid = { ceil_div(args.cols, BX), ceil_div(args.rows, ROWS_PER_BLOCK), 1 },
               block = { BX, BY, 1 } },
             args.input, args.weights, args.output, args.rows, args.cols)
end
