-- saxpy.lua - launches the CUDA C rung (saxpy.cu): ceil(n / 256) blocks of
-- 256 threads, one element a thread.

local BLOCK = 256

return function(gpu, k, args)
  gpu.launch(k.saxpy, { grid = (args.n + BLOCK - 1) // BLOCK, block = BLOCK },
             args.n, args.a, args.x, args.y, args.z)
end
