-- starter.lua - launches the two-pass sum (starter.cu).
--
-- cudalab calls the function returned at the end once per run:
--   gpu   the GPU API (lua/gpu.md)
--   k     your compiled kernels by name: k.block_sums, k.final_sum
--   args  args.input (n floats), args.output (1 float, poisoned), args.n
-- A Buffer from gpu.alloc holds whatever the memory held before: nothing
-- clears it.

local BLOCK, ITEMS = 256, 8
local MAX_PARTIALS = 1024     -- pass 2 is one block of this many threads

local partials                -- allocated on the first call, kept for the rest

return function(gpu, k, args)
  local blocks = (args.n + BLOCK * ITEMS - 1) // (BLOCK * ITEMS)
  assert(blocks <= MAX_PARTIALS, "n is too large for one block in pass 2")
  if partials == nil then
    partials = gpu.alloc(MAX_PARTIALS)
  end
  gpu.launch(k.block_sums, { grid = blocks, block = BLOCK }, args.input, partials, args.n)
  gpu.launch(k.final_sum, { grid = 1, block = MAX_PARTIALS }, partials, blocks, args.output)
end
