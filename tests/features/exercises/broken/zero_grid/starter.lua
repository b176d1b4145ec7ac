-- Expected diagnosis: launch_config (grid.x must be a positive integer): the grid is
-- T * D / 256 rounded down, which is 0 when there are fewer than 256 elements.
-- Problem embedding; size 3x50x10 (150 elements).

local BLOCK = 256

return function(gpu, k, args)
  local elements = args.T * args.D
  gpu.launch(k.embedding, { grid = elements // BLOCK, block = BLOCK },
             args.W, args.idx, args.out, args.T, args.D, args.V)
end
