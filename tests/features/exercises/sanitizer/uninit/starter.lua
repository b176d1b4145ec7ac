-- Launcher of the two-kernel sum (starter.cu): pass 1 over ceil(n / 256)
-- blocks into a scratch buffer of 256 entries, never cleared; pass 2 in one
-- block.  Sizes up to 256 * 256 elements.

local BLOCK = 256

return function(gpu, k, args)
  local blocks = (args.n + BLOCK - 1) // BLOCK
  assert(blocks <= BLOCK, "this test sum takes at most 65536 elements")
  local scratch = gpu.alloc(BLOCK)
  gpu.launch(k.block_sums, { grid = blocks, block = BLOCK }, args.input, scratch, args.n)
  gpu.launch(k.total, { grid = 1, block = BLOCK }, scratch, args.output)
end
