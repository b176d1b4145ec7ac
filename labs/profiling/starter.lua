-- The pipeline's launcher, first version: correct, and slow in the ways the
-- lesson describes.  cudalab calls it once per step, with args.step naming
-- the step ("fill", "filter", "transform", "standardize", "binning",
-- "encode", "groupby"); lua/exercise.md lists the buffers in args.  It
-- loads the table before the first step and runs the linear layer after
-- the last.

local NUM, BINS, ZONES = 8, 16, 10000

-- scratch buffers, made for one table size and kept from call to call
local sel, hist, flags, pos, sums, counts
local n_now

local function blocks(count)
  return math.max(1, (count + 255) // 256)
end

-- The rows the filter kept: read back from the device, which waits for it.
local function kept(args)
  return args.count:download(1)[1]
end

-- Leaves in sel the key of the value of the given rank among the first
-- count values of col (rank nil: the median of its values that are not NaN).
local function select(gpu, k, col, count, rank)
  if rank then sel:upload({ 0, 0, rank, 0 }) else sel:fill(0) end
  for pass = 0, 3 do
    local shift = 24 - 8 * pass
    gpu.launch(k.sel_hist, { grid = blocks(count), block = 256 }, col, count, sel, hist, shift)
    gpu.synchronize()
    -- the rank of the median is counted on the first pass only
    gpu.launch(k.sel_pick, { grid = 1, block = 1 }, sel, hist, shift,
               (not rank and pass == 0) and 1 or 0)
    gpu.synchronize()
  end
end

local steps = {}

function steps.fill(gpu, k, a)
  local n, s = a.n, a.stride
  for c = 0, NUM - 1 do
    local col = a.num:view(c * s, n)
    select(gpu, k, col, n, nil)
    gpu.launch(k.fill_gaps, { grid = blocks(n), block = 256 },
               col, a.filled:view(c * s, n), n, sel, a.median:view(c, 1))
    gpu.synchronize()
  end
end

function steps.filter(gpu, k, a)
  local n, s = a.n, a.stride
  gpu.launch(k.keep_flags, { grid = blocks(n), block = 256 }, a.filled, a.ts, s, n, flags)
  gpu.synchronize()
  gpu.launch(k.scan_one_block, { grid = 1, block = 1024 }, flags, n, pos, a.count)
  gpu.synchronize()
  gpu.launch(k.scatter_rows, { grid = blocks(n), block = 256 }, flags, pos, n, s,
             a.filled, a.ts, a.pay, a.zone, a.label,
             a.kept_num, a.kept_ts, a.kept_pay, a.kept_zone, a.kept_label)
  gpu.synchronize()
end

function steps.transform(gpu, k, a)
  local m = kept(a)
  gpu.launch(k.transform_rows, { grid = blocks(m), block = 256 },
             a.kept_num, a.kept_ts, a.stride, m, a.t, a.X)
  gpu.synchronize()
end

function steps.standardize(gpu, k, a)
  local m = kept(a)
  gpu.launch(k.column_stats, { grid = NUM, block = 256 }, a.t, a.stride, m, a.stats)
  gpu.synchronize()
  gpu.launch(k.zscores, { grid = blocks(NUM * m), block = 256 }, a.t, a.stats, a.stride, m, a.X)
  gpu.synchronize()
end

function steps.binning(gpu, k, a)
  local m = kept(a)
  if m == 0 then
    a.edges:fill(0)
  else
    for j = 0, BINS - 2 do
      select(gpu, k, a.kept_num, m, (j + 1) * m // BINS)
      gpu.launch(k.store_edge, { grid = 1, block = 1 }, sel, a.edges:view(j, 1))
      gpu.synchronize()
    end
  end
  gpu.launch(k.bins, { grid = blocks(m), block = 256 }, a.kept_num, a.edges, a.stride, m, a.X)
  gpu.synchronize()
end

function steps.encode(gpu, k, a)
  local m = kept(a)
  a.counts:fill(0)
  gpu.launch(k.zone_counts, { grid = blocks(m), block = 256 }, a.kept_zone, m, a.counts)
  gpu.synchronize()
  gpu.launch(k.encode_cols, { grid = blocks(m), block = 256 },
             a.kept_zone, a.kept_pay, a.counts, a.stride, m, a.X)
  gpu.synchronize()
end

function steps.groupby(gpu, k, a)
  local m = kept(a)
  sums:fill(0)
  counts:fill(0)
  gpu.launch(k.zone_sums, { grid = blocks(m), block = 256 }, a.kept_zone, a.kept_label, m,
             sums, counts)
  gpu.synchronize()
  gpu.launch(k.zone_means, { grid = blocks(ZONES), block = 256 }, sums, counts, a.gmean)
  gpu.synchronize()
  gpu.launch(k.target_encode, { grid = blocks(m), block = 256 },
             a.kept_zone, a.gmean, a.stride, m, a.X)
  gpu.synchronize()
end

return function(gpu, k, args)
  if args.n ~= n_now then
    for _, b in ipairs({ sel, hist, flags, pos, sums, counts }) do b:free() end
    sel, hist = gpu.alloc(4, "i32"), gpu.alloc(256, "i32")
    hist:fill(0)       -- new buffers hold garbage; each pick clears it after
    flags, pos = gpu.alloc(args.n, "i32"), gpu.alloc(args.n, "i32")
    sums = gpu.alloc(2 * ZONES)              -- ZONES doubles
    counts = gpu.alloc(ZONES, "i32")
    n_now = args.n
  end
  steps[args.step](gpu, k, args)
end
