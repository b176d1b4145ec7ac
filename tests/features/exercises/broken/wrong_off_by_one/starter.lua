-- starter.lua - launches your sgemm kernel (starter.cu).
--
-- cudalab calls the function returned at the end once per run:
--   gpu   the GPU API (lua/gpu.md)
--   k     your compiled kernels by name: k.sgemm
--   args  args.A (M x K), args.B (K x N), args.C (M x N, poisoned),
--         args.M, args.N, args.K
-- The first call of each size checks the result and is never timed; later
-- calls are timed.  lua/exercise.md has the details.

local TILE = 16               -- a block is TILE x TILE threads

local function ceil_div(a, b)
  return (a + b - 1) // b
end

return function(gpu, k, args)
  local grid = { ceil_div(args.N, TILE), ceil_div(args.M, TILE) }   -- x: columns, y: rows
  gpu.launch(k.sgemm, { grid = grid, block = { TILE, TILE } },
             args.M, args.N, args.K, args.A, args.B, args.C)
end
