-- ref.lua - launches the reference kernel (ref.cu): one block of 256
-- threads a row; args.y is a double-precision Buffer here (f64 = true in
-- lab.lua).

return function(gpu, k, args)
  gpu.launch(k.layernorm_ref, { grid = args.rows, block = 256 },
             args.x, args.gamma, args.beta, args.y, args.rows, args.cols)
end
