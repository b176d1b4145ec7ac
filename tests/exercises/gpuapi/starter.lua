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
  kept = args.input
  args.output:fill(0)
  gpu.launch(k.sum_scaled, { grid = (args.n + BLOCK - 1) // BLOCK, block = BLOCK },
             args.input, args.output, args.n, 0.5, 2.0, 7, true)
end
