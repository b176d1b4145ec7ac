-- The pipeline's launcher, first version: correct, and slow in the ways the
-- lesson describes.  cudalab times each call from start to finish: the
-- copies in, both kernels and the copies back into args.output.
--
-- args.input and args.output are the table in ordinary (pageable) host
-- memory, args.rows x args.features floats each.

local CHUNK_ROWS = 128   -- rows moved by one copy

local x, y, mean, inv_std   -- device buffers, kept from call to call
local rows_now, features_now

return function(gpu, k, args)
  local rows, f = args.rows, args.features
  local n = rows * f
  if rows ~= rows_now or f ~= features_now then
    for _, b in ipairs({ x, y, mean, inv_std }) do b:free() end
    x, y = gpu.alloc(n), gpu.alloc(n)
    mean, inv_std = gpu.alloc(f), gpu.alloc(f)
    rows_now, features_now = rows, f
  end

  -- 1. Copy the table in a few rows at a time, and wait after each copy.
  for r0 = 0, rows - 1, CHUNK_ROWS do
    local count = math.min(CHUNK_ROWS, rows - r0) * f
    gpu.copy(x:view(r0 * f, count), args.input:view(r0 * f, count))
    gpu.synchronize()
  end

  -- 2. Each column's mean and standard deviation.
  gpu.launch(k.column_stats, { grid = f, block = 256 }, x, rows, f, mean, inv_std)
  gpu.synchronize()

  -- 3. Standardise and clip every element.
  gpu.launch(k.standardize, { grid = (n + 255) // 256, block = 256 },
             x, y, rows, f, mean, inv_std)
  gpu.synchronize()

  -- 4. Copy the result back the same way it came in.
  for r0 = 0, rows - 1, CHUNK_ROWS do
    local count = math.min(CHUNK_ROWS, rows - r0) * f
    gpu.copy(args.output:view(r0 * f, count), y:view(r0 * f, count))
    gpu.synchronize()
  end
end
