-- ref.lua - launches the reference kernel (ref.cu): args.output is a
-- double-precision Buffer here (f64 = true in lab.lua).

local BX, BY = 32, 8

local function ceil_div(a, b)
  return (a + b - 1) // b
end

return function(gpu, k, args)
  gpu.launch(k.conv5x5_ref,
             { grid = { ceil_div(args.cols, BX), ceil_div(args.rows, BY), 1 },
               block = { BX, BY, 1 } },
             args.input, args.weights, args.output, args.rows, args.cols)
end
