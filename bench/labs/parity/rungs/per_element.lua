-- The shipped launch: 256 threads a block, one element a thread.
return function(gpu, k, args)
  gpu.launch(k.saxpy_per_element_kernel, { grid = (args.n + 255) // 256, block = 256 },
             args.n, args.a, args.x, args.y, args.z)
end
