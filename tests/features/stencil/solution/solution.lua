-- solution.lua - launches the reference convolution (solution.cu): blocks of
-- 32 x 4 threads, each block a patch of 32 columns x 64 rows.

local PW, TY, PH = 32, 4, 64

local function ceil_div(a, b)
  return (a + b - 1) // b
end

return function(gpu, k, args)
  gpu.launch(k.conv5x5,
             { grid = { ceil_div(args.cols, PW), ceil_div(args.rows, PH), 1 },
               block = { PW, TY, 1 } },
             args.input, args.weights, args.output, args.rows, args.cols)
end
