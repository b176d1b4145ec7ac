-- tile.lua - launches rung 3 (tile.cu): blocks of exactly 32 x 8 threads
-- (BX x BY in tile.cu: the kernel sizes its tile with them), one block a
-- 32 x 8 patch of the output.

local BX, BY = 32, 8

local function ceil_div(a, b)
  return (a + b - 1) // b
end

return function(gpu, k, args)
  gpu.launch(k.conv5x5,
             { grid = { ceil_div(args.cols, BX), ceil_div(args.rows, BY), 1 },
               block = { BX, BY, 1 } },
             args.input, args.weights, args.output, args.rows, args.cols)
end
