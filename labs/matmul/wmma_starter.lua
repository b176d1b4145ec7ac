-- wmma_starter.lua - launches your tensor-core kernel (wmma_starter.cu).
--
-- cudalab calls the function returned at the end once per run:
--   gpu   the GPU API (lua/gpu.md)
--   k     your compiled kernels by name: k.gemm_bf16
--   args  args.A (M x K, BF16), args.B (K x N, BF16), args.C (M x N, FP32,
--         poisoned), args.M, args.N, args.K
-- The first call of each size checks the result and is never timed; later
-- calls are timed.  lua/exercise.md has the details.

local TILE = 16               -- a block is one warp and owns a TILE x TILE tile of C

local function ceil_div(a, b)
  return (a + b - 1) // b
end

return function(gpu, k, args)
  local grid = { ceil_div(args.N, TILE), ceil_div(args.M, TILE) }   -- x: columns, y: rows
  gpu.launch(k.gemm_bf16, { grid = grid, block = 32 },
             args.M, args.N, args.K, args.A, args.B, args.C)
end
