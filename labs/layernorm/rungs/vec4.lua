-- vec4.lua - launches rung 4 (vec4.cu).  Rows whose length is a multiple of
-- 4, up to 4096 columns: one warp a row with float4 accesses, 8 rows a block
-- of 256 threads.  Any other row: rung 2's kernel, one block a row.

local THREADS = 256
local ROWS_PER_BLOCK = THREADS // 32

local function ceil_div(a, b)
  return (a + b - 1) // b
end

return function(gpu, k, args)
  local rows, cols = args.rows, args.cols
  local kernel
  if cols % 4 == 0 then
    if cols <= 4 * 32 * 2 then
      kernel = k.layernorm_warp4_2
    elseif cols <= 4 * 32 * 8 then
      kernel = k.layernorm_warp4_8
    elseif cols <= 4 * 32 * 16 then
      kernel = k.layernorm_warp4_16
    elseif cols <= 4 * 32 * 32 then
      kernel = k.layernorm_warp4_32
    end
  end
  if kernel then
    gpu.launch(kernel, { grid = ceil_div(rows, ROWS_PER_BLOCK), block = THREADS },
               args.x, args.gamma, args.beta, args.y, rows, cols)
  else
    gpu.launch(k.layernorm_welford, { grid = rows, block = THREADS },
               args.x, args.gamma, args.beta, args.y, rows, cols)
  end
end
