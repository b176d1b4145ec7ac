-- Expected diagnosis: unwritten (most of out still holds the poison).  The kernel has
-- one thread per element of out, T * D of them, but this grid only covers T threads.
-- Problem embedding; size 4096x64x32000.

local BLOCK = 256

return function(gpu, k, args)
  gpu.launch(k.embedding, { grid = (args.T + BLOCK - 1) // BLOCK, block = BLOCK },
             args.W, args.idx, args.out, args.T, args.D, args.V)
end
