-- Expected diagnosis: launch_config (grid.y of 100000 blocks: the limit is 65535).
-- Problem embedding; size 100000x64x1000.

return function(gpu, k, args)
  gpu.launch(k.embedding, { grid = { 1, args.T }, block = 64 },
             args.W, args.idx, args.out, args.T, args.D, args.V)
end
