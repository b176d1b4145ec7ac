-- Launcher for the tests of the launcher API (starter.cu), by size:
--   1000, 4000  a correct sum: args.output:fill(0), then atomic adds
--   2000        uses the input Buffer kept from size 1000: it must read as freed
--   3000        tries to free the problem's input: cudalab must refuse
--   5000        never returns: the sandbox's time budget must stop it

local BLOCK = 256
local kept

return function(gpu, k, args)
  if args.n == 2000 and kept then
    gpu.launch(k.sum_scaled, { grid = 1, block = BLOCK }, kept, args.output, 1000, 1.0, 1.0, 7, true)
  end
  if args.n == 3000 then
    args.input:free()
  end
  while args.n == 5000 do end
  if args.n == 1000 then   -- a bf16 Buffer: rounding on upload and fill, its size, a view
    local h <close> = gpu.alloc(3, "bf16")
    h:upload({ 1.0, 1.00390625, 3.14159 })   -- halfway to the next bf16 rounds to even
    local t = h:download()
    assert(h.size == 6 and h.dtype == "bf16", "bf16 Buffer: " .. tostring(h))
    assert(t[1] == 1.0 and t[2] == 1.0 and t[3] == 3.140625,
           ("bf16 upload read back %s %s %s"):format(t[1], t[2], t[3]))
    h:fill(-2.5)
    t = h:download()
    assert(t[1] == -2.5 and t[3] == -2.5 and h:view(1, 2).size == 4, "bf16 fill or view")
  end
  kept = args.input
  args.output:fill(0)
  gpu.launch(k.sum_scaled, { grid = (args.n + BLOCK - 1) // BLOCK, block = BLOCK },
             args.input, args.output, args.n, 0.5, 2.0, 7, true)
end
