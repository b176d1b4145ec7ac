-- Expected diagnosis: out_of_memory.  The scratch buffer is sized as if gpu.alloc
-- took bytes and then multiplied again: 2^40 floats (4 TiB), more than any GPU has.
-- Problem reduce_sum; any size.

local BLOCK = 256
local scratch

return function(gpu, k, args)
  if scratch == nil then
    scratch = gpu.alloc(1 << 40)
  end
  gpu.launch(k.reduce_sum, { grid = (args.n + BLOCK - 1) // BLOCK, block = BLOCK,
                             shared = BLOCK * 4 },
             args.input, scratch, args.n)
end
