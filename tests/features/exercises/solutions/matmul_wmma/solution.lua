-- solution.lua - launcher of the reference tensor-core matmul (solution.cu).

local TILE = 128

return function(gpu, k, args)
  local grid = { (args.N + TILE - 1) // TILE, (args.M + TILE - 1) // TILE }
  gpu.launch(k.gemm_bf16, { grid = grid, block = 256 },
             args.M, args.N, args.K, args.A, args.B, args.C)
end
