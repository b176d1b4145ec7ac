-- welford.lua - launches rung 2 (welford.cu): one block of 256 threads a
-- row, as rung 1.

local THREADS = 256

return function(gpu, k, args)
  gpu.launch(k.layernorm, { grid = args.rows, block = THREADS },
             args.x, args.gamma, args.beta, args.y, args.rows, args.cols)
end
