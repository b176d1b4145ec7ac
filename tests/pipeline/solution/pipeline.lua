-- A reference solution of the profiling lab's pipeline.
--
-- The table is cut into chunks of about 4 MiB handed round-robin to three
-- streams.  Going in, the CPU copies chunk i from args.input into a pinned
-- staging buffer while the copy engine uploads earlier chunks and their
-- column sums run; coming back, chunk i is transformed and downloaded
-- while the CPU copies earlier chunks from their pinned buffers into
-- args.output.  The statistics need every row, so one event joins the
-- streams between the two halves.

local NSTREAMS = 3
local CHUNK_BYTES = 4 << 20

local st = {}   -- device buffers, pinned buffers, streams and events, per size

local function release()
  for _, b in ipairs(st.buffers or {}) do b:free() end
  for _, s in ipairs(st.streams or {}) do s:destroy() end
  st = {}
end

local function setup(gpu, rows, f)
  release()
  local chunk_rows = math.max(1, CHUNK_BYTES // (4 * f))
  if chunk_rows > rows then chunk_rows = rows end
  st.rows, st.f, st.chunk_rows = rows, f, chunk_rows
  st.x = gpu.alloc(rows * f)
  st.sums, st.sumsq = gpu.alloc(2 * f), gpu.alloc(2 * f)   -- f doubles each
  st.mean, st.inv = gpu.alloc(f), gpu.alloc(f)
  st.buffers = { st.x, st.sums, st.sumsq, st.mean, st.inv }
  st.streams, st.stage_in, st.stage_out, st.joined = {}, {}, {}, {}
  for i = 1, NSTREAMS do
    st.streams[i] = gpu.stream()
    st.stage_in[i] = gpu.host_alloc(chunk_rows * f)
    st.stage_out[i] = gpu.host_alloc(chunk_rows * f)
    st.joined[i] = gpu.event()
    table.insert(st.buffers, st.stage_in[i])
    table.insert(st.buffers, st.stage_out[i])
  end
  st.zeroed, st.ready = gpu.event(), gpu.event()
  local warps = gpu.device().sms * 8
  st.sum_grid = { (f + 31) // 32, math.max(1, math.min(warps, (chunk_rows + 63) // 64)) }
  st.xform_grid = math.max(1, math.min(gpu.device().sms * 8, (chunk_rows * f + 255) // 256))
end

-- Element offset, element count and row count of chunk i (from 0).
local function span(i)
  local r0 = i * st.chunk_rows
  local m = math.min(st.chunk_rows, st.rows - r0)
  return r0 * st.f, m * st.f, m
end

return function(gpu, k, args)
  local rows, f = args.rows, args.features
  if st.rows ~= rows or st.f ~= f then setup(gpu, rows, f) end
  local nchunks = (rows + st.chunk_rows - 1) // st.chunk_rows

  -- The sums start at zero; every stream waits for that.
  st.sums:fill(0)
  st.sumsq:fill(0)
  st.zeroed:record()
  for s = 1, NSTREAMS do st.streams[s]:wait(st.zeroed) end

  -- In: stage on the CPU, upload and sum on the chunk's stream.  The copy
  -- into a staging buffer first waits for that stream, whose last upload
  -- came out of the same buffer.
  for i = 0, nchunks - 1 do
    local s = i % NSTREAMS + 1
    local stream, stage = st.streams[s], st.stage_in[s]
    local off, n, m = span(i)
    gpu.copy(stage, args.input:view(off, n), 4 * n, stream)
    local dst = st.x:view(off, n)
    gpu.copy(dst, stage, 4 * n, stream)
    gpu.launch(k.chunk_sums, { grid = st.sum_grid, block = { 32, 8 }, stream = stream },
               dst, m, f, st.sums, st.sumsq)
  end

  -- Join: the statistics once every chunk is summed, then every stream
  -- waits for them.
  for s = 1, NSTREAMS do
    st.joined[s]:record(st.streams[s])
    gpu.wait(st.joined[s])
  end
  gpu.launch(k.finish_stats, { grid = (f + 255) // 256, block = 256 },
             st.sums, st.sumsq, rows, f, st.mean, st.inv)
  st.ready:record()
  for s = 1, NSTREAMS do st.streams[s]:wait(st.ready) end

  -- Out: transform and download on the chunk's stream; a chunk reaches
  -- args.output once its stream has brought it back, which the copy below
  -- waits for.
  local pending = {}
  local function drain(i)
    local s = i % NSTREAMS + 1
    local off, n = span(i)
    gpu.copy(args.output:view(off, n), st.stage_out[s], 4 * n, st.streams[s])
  end
  for i = 0, nchunks - 1 do
    local s = i % NSTREAMS + 1
    if pending[s] then drain(pending[s]) end
    local off, n = span(i)
    local chunk = st.x:view(off, n)
    gpu.launch(k.standardize_clip, { grid = st.xform_grid, block = 256, stream = st.streams[s] },
               chunk, n, f, st.mean, st.inv)
    gpu.copy(st.stage_out[s], chunk, 4 * n, st.streams[s])
    pending[s] = i
  end
  for i = math.max(0, nchunks - NSTREAMS), nchunks - 1 do drain(i) end
end
