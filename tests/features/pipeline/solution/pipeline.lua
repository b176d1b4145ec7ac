-- A reference solution of the pipeline lab's exercise: every step
-- enqueued without waiting (kernels after the filter read the row count
-- from args.count on the device), histograms privatised in shared memory,
-- selections of 11 bits a pass over all targets at once, a three-kernel
-- scan for the filter, and group-by sums in shared memory.

local NUM, BINS, ZONES, SEL_BINS, TILE = 8, 16, 10000, 2048, 4096

local sel, hist, block_counts, sums, zsum, zcnt
local n_now
local grid                     -- blocks for a grid-stride loop over the table

local SHIFT = { 21, 10, 0 }
local DIGITS = { 2047, 2047, 1023 }

local function select_passes(gpu, k, x, tstride, n, count, targets, median)
  for p = 1, 3 do
    gpu.launch(k.sel_hist, { grid = { grid, targets }, block = 256 },
               x, tstride, n, count or 0, sel, hist, SHIFT[p], DIGITS[p])
    gpu.launch(k.sel_pick, { grid = targets, block = 1024 }, sel, hist, SHIFT[p], DIGITS[p],
               (median and p == 1) and 1 or 0)
  end
end

local steps = {}

function steps.fill(gpu, k, a)
  sel:fill(0)
  select_passes(gpu, k, a.num, a.stride, a.n, nil, NUM, true)
  gpu.launch(k.fill_gaps, { grid = { grid, NUM }, block = 256 }, a.num, a.filled, a.stride,
             sel, a.median)
end

function steps.filter(gpu, k, a)
  local blocks = (a.n + TILE - 1) // TILE
  gpu.launch(k.keep_count, { grid = blocks, block = 1024 }, a.filled, a.ts, a.stride, a.n,
             block_counts)
  gpu.launch(k.scan_counts, { grid = 1, block = 1024 }, block_counts, blocks, a.count)
  gpu.launch(k.keep_scatter, { grid = blocks, block = 1024 }, a.filled, a.ts, a.pay, a.zone,
             a.label, a.stride, a.n, block_counts, a.kept_num, a.kept_ts, a.kept_pay,
             a.kept_zone, a.kept_label)
end

function steps.transform(gpu, k, a)
  gpu.launch(k.transform_rows, { grid = grid, block = 256 }, a.kept_num, a.kept_ts, a.stride,
             a.count, a.t, a.X)
end

function steps.standardize(gpu, k, a)
  sums:fill(0)
  gpu.launch(k.col_sums, { grid = grid, block = 256 }, a.t, a.stride, a.count, sums)
  gpu.launch(k.zscores, { grid = grid, block = 256 }, a.t, sums, a.stride, a.count, a.stats,
             a.X)
end

function steps.binning(gpu, k, a)
  gpu.launch(k.sel_ranks, { grid = 1, block = 32 }, sel, a.count, BINS - 1)
  select_passes(gpu, k, a.kept_num, 0, a.n, a.count, BINS - 1, false)
  gpu.launch(k.store_edges, { grid = 1, block = 32 }, sel, a.count, a.edges)
  gpu.launch(k.bins, { grid = grid, block = 256 }, a.kept_num, a.edges, a.stride, a.count, a.X)
end

function steps.encode(gpu, k, a)
  a.counts:fill(0)
  gpu.launch(k.zone_hist, { grid = grid // 4 + 1, block = 512 }, a.kept_zone, a.count, a.counts)
  gpu.launch(k.encode_cols, { grid = grid, block = 256 }, a.kept_zone, a.kept_pay, a.counts,
             a.stride, a.count, a.X)
end

function steps.groupby(gpu, k, a)
  zsum:fill(0)
  zcnt:fill(0)
  gpu.launch(k.zone_sums, { grid = grid // 4 + 1, block = 512, shared = 80000 }, a.kept_zone,
             a.kept_label, a.count, zsum, zcnt)
  gpu.launch(k.zone_means, { grid = (ZONES + 255) // 256, block = 256 }, zsum, zcnt, a.gmean)
  gpu.launch(k.target_encode, { grid = grid, block = 256 }, a.kept_zone, a.gmean, a.stride,
             a.count, a.X)
end

return function(gpu, k, args)
  if args.n ~= n_now then
    for _, b in ipairs({ sel, hist, block_counts, sums, zsum, zcnt }) do b:free() end
    sel = gpu.alloc(4 * (BINS - 1), "i32")
    hist = gpu.alloc(SEL_BINS * (BINS - 1), "i32")
    hist:fill(0)
    block_counts = gpu.alloc((args.n + TILE - 1) // TILE, "i32")
    sums = gpu.alloc(4 * NUM)              -- 2 NUM doubles
    zsum = gpu.alloc(2 * ZONES)            -- ZONES doubles
    zcnt = gpu.alloc(ZONES, "i32")
    local sms = gpu.device().sms
    grid = math.max(1, math.min((args.n + 255) // 256, 8 * sms))
    n_now = args.n
  end
  steps[args.step](gpu, k, args)
end
