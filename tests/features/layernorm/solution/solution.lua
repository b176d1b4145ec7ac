-- solution.lua - launches the reference layer normalisation (solution.cu):
-- one block a row; rows of a multiple of 4 columns, up to 32768, go to the
-- float4 kernel with ceil(cols / 32) threads rounded up to whole warps
-- (8 float4 groups a thread), every other row to the scalar kernel.

local G = 8                   -- float4 groups a thread, as in solution.cu

local function ceil_div(a, b)
  return (a + b - 1) // b
end

return function(gpu, k, args)
  local rows, cols = args.rows, args.cols
  if cols % 4 == 0 and cols <= 4 * G * 1024 then
    local threads = 32 * ceil_div(ceil_div(cols // 4, G), 32)
    gpu.launch(k.layernorm_rows4, { grid = rows, block = threads },
               args.x, args.gamma, args.beta, args.y, rows, cols)
  else
    gpu.launch(k.layernorm_any, { grid = rows, block = 256 },
               args.x, args.gamma, args.beta, args.y, rows, cols)
  end
end
