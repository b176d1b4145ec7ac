-- weights_shared.lua - launches rung 2 (weights_shared.cu): one thread a
-- pixel, blocks of 32 x 8 threads (at least 25, one for each weight), a 2D
-- grid that covers every column and row.

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
