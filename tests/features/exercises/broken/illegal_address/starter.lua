-- starter.lua - launches your embedding kernel (starter.cu).
--
-- cudalab calls the function returned at the end once per run:
--   gpu   the GPU API (lua/gpu.md)
--   k     your compiled kernels by name: k.embedding
--   args  args.W (V x D), args.idx (T ints), args.out (T x D, poisoned),
--         args.T, args.D, args.V
-- The first call of each size checks the result and is never timed; later
-- calls are timed.  lua/exercise.md has the details.

local BLOCK = 256             -- threads a block

local function ceil_div(a, b)
  return (a + b - 1) // b
end

return function(gpu, k, args)
  local elements = args.T * args.D                   -- one thread an element of out
  gpu.launch(k.embedding, { grid = ceil_div(elements, BLOCK), block = BLOCK },
             args.W, args.idx, args.out, args.T, args.D, args.V)
end
