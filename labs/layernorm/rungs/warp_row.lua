-- warp_row.lua - launches rung 3 (warp_row.cu).  Up to 4096 columns: one
-- warp a row, 8 rows a block of 256 threads, with the smallest number of
-- values a lane that holds the row.  Longer rows: rung 2's kernel, one block
-- of 256 threads a row.

local THREADS = 256
local ROWS_PER_BLOCK = THREADS // 32

local function ceil_div(a, b)
  return (a + b - 1) // b
end

return function(gpu, k, args)
  local rows, cols = args.rows, args.cols
  local kernel
  if cols <= 32 * 8 then
    kernel = k.layernorm_warp8
  elseif cols <= 32 * 32 then
    kernel = k.layernorm_warp32
  elseif cols <= 32 * 64 then
    kernel = k.layernorm_warp64
  elseif cols <= 32 * 128 then
    kernel = k.layernorm_warp128
  end
  if kernel then
    gpu.launch(kernel, { grid = ceil_div(rows, ROWS_PER_BLOCK), block = THREADS },
               args.x, args.gamma, args.beta, args.y, rows, cols)
  else
    gpu.launch(k.layernorm_welford, { grid = rows, block = THREADS },
               args.x, args.gamma, args.beta, args.y, rows, cols)
  end
end
