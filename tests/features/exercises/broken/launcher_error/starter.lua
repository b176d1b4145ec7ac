-- Expected diagnosis: launcher (starter.lua:9: attempt to perform arithmetic on a nil
-- value (field 'count')): the problem's size is args.n, not args.count.
-- Problem reduce_sum; any size.

local BLOCK = 256

return function(gpu, k, args)
  local count = args.n
  local blocks = (args.count + BLOCK - 1) // BLOCK
  gpu.launch(k.reduce_sum, { grid = blocks, block = BLOCK, shared = BLOCK * 4 },
             args.input, args.output, count)
end
