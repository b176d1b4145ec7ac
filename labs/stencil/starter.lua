-- starter.lua - launches your convolution (starter.cu).
--
-- cudalab calls the function returned at the end once per run:
--   gpu   the GPU API (lua/gpu.md)
--   k     your compiled kernels by name: k.conv5x5
--   args  args.input (rows * cols floats), args.weights (25 floats),
--         args.output (rows * cols floats, poisoned), args.rows, args.cols
-- The first call of each size checks the result and is never timed; later
-- calls are timed, and everything they launch counts.  lua/exercise.md has
-- the details.

local BX, BY = 32, 8          -- threads a block in x (columns) and y (rows)

local function ceil_div(a, b)
  return (a + b - 1) // b
end

return function(gpu, k, args)
  -- A 2D grid: x covers the columns, y the rows (at most 65535 blocks in y).
  gpu.launch(k.conv5x5,
             { grid = { ceil_div(args.cols, BX), ceil_div(args.rows, BY), 1 },
               block = { BX, BY, 1 } },
             args.input, args.weights, args.output, args.rows, args.cols)
end
