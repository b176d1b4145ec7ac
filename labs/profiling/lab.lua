-- Profiling: where the time of a GPU program goes besides its kernels, how
-- to measure it without fooling yourself, and the pipeline lab's slow
-- starter to profile and fix with what the experiments show.
return lab {
  id = "profiling",
  title = "Profiling and data pipelines",
  summary = "Timelines, transfers, pinned memory, streams, access patterns and honest timing, then the data pipeline's slow starter to profile and fix.",
  order = 1,
  problem = "profiling",
  -- every experiment plus the pipeline at two sizes: generous
  time_limit = 900,

  steps = {
    step "What a timeline shows" [[
      A fast kernel does not make a fast program.  A first GPU port
      typically allocates memory, copies its inputs over, runs one kernel
      and copies the result back; in a small measured example the two
      copies took 8.3 ms and 6.5 ms and the kernel 0.17 ms.  Making that
      kernel twice as fast would save about 1% of the run.

      So the first tool is a **timeline**: one row per CPU thread and one
      per GPU stream and copy direction, every operation a bar from its
      start to its end.  Nsight Systems records one for a whole program
      (`nsys profile ./app`); cudalab records one with CUPTI while its
      experiments run and writes it as a Chrome trace you can open in
      ui.perfetto.dev.  Read it for three things:

      - **gaps** on the GPU rows: the device waits for the host;
      - **copies**: how long they are next to the kernels, how many there
        are, and whether their host memory is pinned or pageable;
      - **serialisation**: work that could overlap but runs one piece
        after another, often behind a synchronisation.

      Look inside a kernel (Nsight Compute: memory throughput, occupancy,
      stall reasons) only once the timeline is dense.  The experiments of
      this lab, the rows of its run table, each isolate one of these
      effects; `cudalab profile` runs them from the command line and
      prints where the GPU idled.
    ]],

    step "Moving data: pinned and pageable, few and many" [[
      Memory from `malloc` is **pageable**: the operating system may move
      or swap its pages, so the GPU's copy engine cannot read it directly.
      The driver copies it through a pinned staging buffer of its own, a
      piece at a time, with the CPU.  Memory from `cudaHostAlloc` (or
      registered with `cudaHostRegister`) is **pinned**: its pages stay
      put, the copy engine reads them directly at the link's full speed,
      and the copy can run while the CPU does something else.

      Pinning has costs: pinned pages are taken from the rest of the
      system, and allocating them is slow.  Pin the buffers you reuse,
      once, not inside the loop.

      Every copy also pays a fixed price of several microseconds, so a
      thousand small copies cost far more than one large one of the same
      bytes.  The `transfers` experiment shows all of it on this machine:
      a 256 MiB buffer copied both ways from pageable and from pinned
      memory, the same bytes as 4096 copies of 64 KiB, and a kernel that
      reads and writes those bytes on the device, against the time it
      took to bring them over.  Data that stays on the GPU between steps
      costs nothing to move.
    ]],

    step "Overlap with streams" [[
      A **stream** is a queue of GPU work that runs in order; work in
      different streams may run at the same time.  A GPU has separate
      copy engines for each direction, so a kernel of one stream, an
      upload of another and a download of a third can all proceed at
      once.  With everything on one stream the pipeline goes copy,
      kernel, copy: one engine busy at a time.

      Split the data into chunks and give the chunks to a few streams,
      each doing copy in, kernel, copy out.  While chunk 2 is computed,
      chunk 3 comes in and chunk 1 goes out.  On the timeline the bars
      stack up instead of lining up, and the total approaches the longest
      of the three stages instead of their sum.

      Two conditions: asynchronous copies need **pinned** host memory
      (from pageable memory they return only after the data is staged,
      and nothing overlaps), and a `cudaDeviceSynchronize` in the loop
      waits for every stream at once.  When one stream must wait for
      another, record an event in the first and make the second wait for
      it.  The `overlap` experiment runs one stream against 8 chunks over
      4 streams, with a kernel sized to take about as long as the copy.
    ]],

    step "Access patterns decide kernel time" [[
      Global memory moves in 32-byte sectors.  When the 32 threads of a
      warp read 32 neighbouring floats, 4 sectors carry exactly the 128
      bytes they need: the access is **coalesced**.  When neighbouring
      threads read addresses far apart (a column of a row-major matrix, a
      field of an array of structures), each thread pulls in a sector of
      its own and uses 4 bytes of it.

      The `stride` experiment reads every s-th float for s from 1 to 128
      and shows the useful bandwidth falling as the share of fetched
      bytes that is used shrinks.  The `gemv` experiment computes y = A x
      three ways: one thread per row of a row-major A (each warp's reads
      a row apart), one thread per row of a column-major A (neighbouring
      threads read neighbouring addresses), and a warp per row-major row.
      Same arithmetic, several times apart in time, though not in the
      order coalescing alone predicts: one thread a row gives an 8192-row
      matrix 8192 threads, about two warps a multiprocessor on an H100,
      far too few to hide memory latency.  Both thread-a-row versions are
      latency-bound, and the coalesced column-major one is not even the
      faster (on an H100, 660 us against 550).  The warp a row fixes both
      at once: coalesced reads, and 32 times the threads in flight (96 us).
      Coalescing pays only when enough loads are in flight to use it.

      The fixes are in the layout (structure of arrays instead of arrays
      of structures, a transposed copy) or in which thread takes which
      element.
    ]],

    step "Launch shape and occupancy" [[
      A multiprocessor keeps many warps resident and switches between
      them to hide memory latency.  **Occupancy** is the share of its
      warp slots a kernel fills; it is limited by the block size, the
      registers each thread uses and the shared memory each block takes.

      The `blocksize` experiment runs one bandwidth-bound kernel, one
      element a thread, at 32 to 1024 threads per block, and reports the
      occupancy the runtime computes for each.  Read the rows against that
      column.  Blocks of 32 threads leave half the warp slots empty: a
      multiprocessor holds at most 32 blocks (on an H100), so 32 x 32 =
      1024 of its 2048 threads.  But on an H100 the 64- and 128-thread rows
      already show 100% occupancy and are still slower than 256 threads
      (over 256 MiB: 635 and 320 us against 242 us).  Occupancy is not
      what limits them: each of their blocks does almost nothing, one
      element a thread, and a multiprocessor starts and retires only so
      many blocks a microsecond.  With blocks that short, the block
      scheduler is the bottleneck.  Take a multiple of 32, often 256, and
      give each thread several elements (a grid-stride loop) when blocks
      must be small; past a moderate occupancy, more warps do not buy
      more bandwidth, and a grid of a few blocks on a GPU with a hundred
      multiprocessors is a far commoner problem.
    ]],

    step "Shared memory: the transpose" [[
      A transpose reads rows and writes columns, so one of the two
      accesses is strided whatever the thread mapping.  The classic fix
      stages a 32x32 tile in shared memory: read the tile with coalesced
      rows, then write it out with coalesced rows of the output, reading
      the tile by columns.

      Shared memory is split into 32 banks of 4-byte words.  Reading a
      32x32 tile by columns sends all 32 threads of a warp to the same
      bank, and the 32 requests are served one after another: a **bank
      conflict**.  Padding the tile to 32x33 shifts each row by one bank
      and the conflict disappears.

      The `transpose` experiment first copies the same bytes with the
      same blocks of 32x8 threads, four elements a thread, straight
      across instead of transposed: both sides coalesced and no barrier,
      so no transpose of this shape can move data faster.  That row is
      the bound.  Then come a transpose straight to global memory, one
      through a shared tile and one through the padded tile.  The naive
      one loses most of the bandwidth to its scattered stores, the tiled
      one gets it back but for the bank conflicts, and the padded one
      comes close to the copy: 1.00 of it on an H100 (2761 against 2774
      GB/s at 8192x8192) and 0.96 on an H200 (3485 against 3648).  Compare the last two with
      `cudalab profile transpose --ncu prof_transpose_tiled` when Nsight
      Compute is installed: it counts the conflicts.
    ]],

    step "Timing without fooling yourself" [[
      Kernel launches are **asynchronous**: the call returns as soon as
      the launch is queued.  A CPU clock around a launch measures the
      queueing, a few microseconds, whatever the kernel does.  Time GPU
      work with CUDA events recorded in its stream, or synchronise before
      reading the clock.  `cudaDeviceSynchronize` makes the host wait for
      all work of every stream; the streams themselves keep running, but
      the host queues nothing new meanwhile, so synchronising inside a
      loop of launches leaves the GPU idle between them.

      More traps:

      - The first launch of a kernel carries one-time costs (loading the
        module, clocks ramping up): warm up before timing.
      - One measurement is noise: repeat and report the median with its
        spread.
      - A working set that fits in the L2 cache measures the cache: use
        inputs larger than the L2, or flush it between repetitions.
      - Compare against a fast CPU baseline, not a slow reference loop.
      - A fast wrong answer is worthless: check every output against a
        reference, with the output filled with garbage first.

      The `timing` experiment measures one kernel with a host clock
      without and with synchronisation, with events, and its first launch
      against later ones.  cudalab's own run table follows every rule of
      the list.
    ]],

    step "The roofline" [[
      **Arithmetic intensity** is the work a kernel does per byte it
      moves: FLOPs over bytes.  A GPU sustains at most its peak FP32 rate
      and at most its memory bandwidth, so a kernel of intensity I cannot
      exceed min(peak FLOP/s, I x bandwidth).  Drawn on log-log axes that
      bound is a slanted roof (memory-bound) meeting a flat one
      (compute-bound) at the **ridge point**, peak FLOP/s over bandwidth:
      tens of FLOPs per byte on current GPUs.

      The `roofline` experiment runs one kernel at 0.75 to 1024.75 FLOPs
      per byte and places each point under the roof measured on this
      device; `cudalab profile roofline` draws it.  A kernel that does a
      few operations per element, like the pipeline below, sits far left
      of the ridge: only the bytes it moves matter, and when its data
      starts in host memory, the slowest bytes are the ones crossing the
      link.
    ]],

    step "Your turn: profile the slow pipeline" [[
      The exercise is the pipeline lab's (`pipeline`): a table of trips
      loaded from disk, then seven preprocessing steps on the GPU (fill,
      filter, transform, standardize, binning, encode, groupby) and a
      linear layer, all on the device.  Your files here start as that
      lab's starter, which is correct and slow; the lab's lesson describes
      the steps and `lua/exercise.md` the buffers your launcher receives.
      Each of your steps gets a row, and your whole pipeline one, `your
      pipeline`, timed from the file on disk to the layer's output.

      Profiling it is this lab's work.  `cudalab report profiling` runs
      the starter and your pipeline end to end, records one call of each
      on a timeline, and writes `profiling/report.md` in your workspace: a
      before-and-after table, each timeline summarised (busy time per
      lane, the copies, idle gaps, how much copying and computing
      overlapped), what changed between them, and a section for your own
      notes that is kept when the report is rewritten.  The two traces are
      written beside it (open them in ui.perfetto.dev).

      What to look for in the starter's timeline: the gaps between its
      many short kernels (a `gpu.synchronize()` after each launch, and the
      launcher reading the row count back before every step), a selection
      that runs dozens of tiny launches per column, single-block and
      single-thread kernels that leave the GPU idle, and histograms whose
      threads all wait on the same few global counters.  The load at the
      start is the lab's: compare its copies with the `transfers`
      experiment.

      **Milestone: a profiling report with optimisations applied**: your
      pipeline correct, 3x or more faster end to end than the starter
      (the milestone shows by how much), and a report written with
      `cudalab report profiling`.  The pipeline lab's own milestones (10x
      over the CPU end to end, every step 5x) are judged there, on that
      lab's files.

      | key | what it does |
      |---|---|
      | `e` | edit your kernel (`X` resets it, yours is backed up) |
      | `r` | run the selected row: on `your pipeline`, the starter, yours and the CPU |
      | `R` | every experiment, then the pipeline |
      | `s` / `S` | next / previous size |
      | `Enter` | a row's figures, and why it failed |
      | `t` | the last run's timeline (`+`/`-` zoom, Tab picks an item) |
      | `T` | write that timeline as a Chrome trace |
      | `f` | the roofline of the measured kernels |
      | `N` | Nsight Compute metrics of the selected row's kernel |
      | `M` / `C` | your kernel under memcheck / racecheck |
      | `H` | the next hint |

      From the command line, Nsight Compute looks inside one kernel:
      `cudalab profile transpose --ncu prof_transpose_tiled`.
    ]],
  },

  variants = {
    variant {
      id = "transfers", title = "Moving data",
      why = "Pageable against pinned copies both ways, 4096 small copies against one "
         .. "large one, and copying 256 MiB against computing on it.",
    },
    variant {
      id = "overlap", title = "Overlapping copies and kernels",
      why = "Copy in, compute, copy out on one stream, then the same work in 8 chunks "
         .. "over 4 streams.",
    },
    variant {
      id = "stride", title = "Coalesced and strided reads",
      why = "Every s-th float for s from 1 to 128: useful bandwidth and the share of "
         .. "fetched bytes used.",
    },
    variant {
      id = "gemv", title = "Layout: y = A x",
      why = "A row-major or column-major, one thread or one warp per row: the same "
         .. "arithmetic with different access patterns.",
    },
    variant {
      id = "blocksize", title = "Block size and occupancy",
      why = "One bandwidth kernel at 32 to 1024 threads per block, with the occupancy "
         .. "the runtime reports.",
    },
    variant {
      id = "transpose", title = "Transpose through shared memory",
      why = "A copy as the yardstick, then naive, tiled and padded (conflict-free) "
         .. "transposes.",
    },
    variant {
      id = "timing", title = "Timing pitfalls",
      why = "A host clock without and with synchronisation, CUDA events, and the first "
         .. "launch against later ones.",
    },
    variant {
      id = "roofline", title = "The roofline",
      why = "One kernel at rising FLOPs per byte, placed under this device's memory and "
         .. "FP32 roofs.",
    },
  },

  exercise = exercise {
    problem = "pipeline",
    sizes = { "2^20", "2^22" },
    kernel = "starter.cu",
    launcher = "starter.lua",
    hints = {
      [[Start with the report: `cudalab report profiling` times the
        starter, and its timeline shows where the time goes.  Count the
        kernels and the synchronisations, and look at the gaps between
        them and at the longest bars.]],
      [[Your step rows say which step costs most.  In the starter it is
        the selection (fill, and binning's fifteen edges): four passes of
        a histogram and a one-thread kernel per value sought, with a wait
        after each launch.]],
      [[Remove the waits first: launches on one stream run in order, so
        `gpu.synchronize()` is needed only where the launcher reads a
        result (the row count).  Then give the histograms a copy per block
        in shared memory.]],
      [[The pipeline lab's hints go further, step by step: open that lab
        and press `H` there.]],
    },
  },

  quizzes = {
    quiz {
      id = "timing",
      question = "A loop launches the same kernel 100 times between two reads of a CPU clock "
              .. "and reports 0.5 ms. With cudaDeviceSynchronize() before the second read it "
              .. "reports 120 ms. How long does one kernel take?",
      choices = {
        { text = "5 microseconds: 0.5 ms over 100 launches.",
          feedback = "Launches are asynchronous: without a synchronisation the clock stops "
                  .. "as soon as the 100th launch is queued. 5 us is the cost of queueing a "
                  .. "launch, not of running the kernel." },
        { text = "About 1.2 ms: 120 ms over 100 runs, once the host waits for the GPU to "
              .. "finish. CUDA events around the loop would say the same.",
          correct = true,
          feedback = "Right. Synchronising once after the loop counts every kernel and adds "
                  .. "one wait; events recorded in the stream measure the GPU's own time. "
                  .. "Warm up first, and repeat for a median." },
        { text = "120 ms: the first figure is wrong and the second is one kernel.",
          feedback = "120 ms covers all 100 kernels, run back to back, plus queueing the "
                  .. "last ones; one kernel is about a hundredth of it, 1.2 ms." },
      },
    },
    quiz {
      id = "pinned",
      question = "The same 256 MiB upload takes twice as long from malloc memory as from "
              .. "cudaHostAlloc memory, and a cudaMemcpyAsync from the malloc buffer never "
              .. "overlaps a kernel in another stream. Why?",
      choices = {
        { text = "malloc memory is pageable: the driver first copies it, with the CPU, "
              .. "piece by piece into a pinned staging buffer, and the call waits for that.",
          correct = true,
          feedback = "Right. The copy engine can only read pages that cannot move. Pageable "
                  .. "data takes an extra CPU copy and the call returns only once it is "
                  .. "staged. Pin the buffers you reuse, once, outside the loop." },
        { text = "malloc memory is slower RAM than cudaHostAlloc memory.",
          feedback = "Both are the same system memory. The difference is that pinned pages "
                  .. "cannot be moved by the operating system, so the GPU's copy engine reads "
                  .. "them directly over the link." },
        { text = "cudaMemcpyAsync ignores its stream for copies larger than 64 MiB.",
          feedback = "There is no such limit. From pinned memory a copy of any size runs "
                  .. "asynchronously in its stream; from pageable memory the host must stage "
                  .. "the data first, so it cannot overlap." },
      },
    },
    quiz {
      id = "streams",
      question = "All host memory is pinned; s1 and s2 come from cudaStreamCreate. Calls in "
              .. "order: copy A to the GPU on s1; kernel K1 on s1; copy B to the GPU on s2; "
              .. "kernel K0 on the legacy default stream; kernel K2 on s2. What can overlap?",
      choices = {
        { text = "Everything: five operations, five chances to run at once.",
          feedback = "Work in one stream runs in order: K1 waits for copy A. And the "
                  .. "legacy default stream waits for all earlier work of blocking streams, "
                  .. "and their later work waits for it." },
        { text = "Copy B may overlap K1 (not copy A: one engine copies to the GPU); K0 "
              .. "waits until A, K1 and B are done; K2 starts only after K0.",
          correct = true,
          feedback = "Right. s1 and s2 are independent, so B can run beside s1's work. K0 on "
                  .. "the legacy default stream is a barrier for blocking streams. Create s1 "
                  .. "and s2 with cudaStreamNonBlocking, or avoid stream 0, to keep overlap." },
        { text = "Nothing: with the default stream in the program every call serialises.",
          feedback = "Only around the default-stream call. Before it, copy B on s2 can "
                  .. "run while K1 computes on s1; it is K0 that waits for them, and K2 that "
                  .. "waits for K0." },
      },
    },
    quiz {
      id = "padding",
      question = "A warp reads a column of a shared float tile: thread tx reads tile[tx][c]. "
              .. "Shared memory has 32 banks of 4-byte words. Which declaration makes this "
              .. "read conflict-free?",
      choices = {
        { text = "float tile[32][32]",
          feedback = "A row is 32 words, so tile[tx][c] is word 32 * tx + c, in bank c for "
                  .. "every tx: all 32 threads on one bank, a 32-way conflict, 32 turns." },
        { text = "float tile[32][33]",
          correct = true,
          feedback = "Right. Word 33 * tx + c is in bank (tx + c) % 32: a different bank for "
                  .. "each of the 32 threads. The padded transpose row uses exactly this; the "
                  .. "extra column costs 128 bytes." },
        { text = "float tile[32][34]",
          feedback = "Word 34 * tx + c is in bank (2 * tx + c) % 32, which takes only 16 "
                  .. "values: two threads a bank, a 2-way conflict. The row length must be odd "
                  .. "in words." },
        { text = "float tile[33][32]",
          feedback = "An extra row changes nothing for this read: rows are still 32 words "
                  .. "apart, so tile[tx][c] stays in bank c for every thread, 32-way." },
      },
    },
    quiz {
      id = "stride",
      question = "Each thread of a warp reads one float, thread i at element 8 * i (a stride "
              .. "of 8 floats). Memory moves 32-byte sectors. What share of the bytes fetched "
              .. "is used?",
      choices = {
        { text = "100%: the warp still reads 32 floats, 128 bytes.",
          feedback = "The floats are 32 bytes apart, so each one sits in a sector of its own: "
                  .. "32 sectors, 1024 bytes fetched for 128 used." },
        { text = "12.5%: 32 sectors of 32 bytes are fetched for 32 floats of 4 bytes.",
          correct = true,
          feedback = "Right: 128 / 1024. At stride 1 the warp fills 4 sectors (100%), at "
                  .. "stride 2 it needs 8 (50%), at 8 or more one a thread. The stride row "
                  .. "shows useful bandwidth falling the same way." },
        { text = "50%: every other sector is skipped.",
          feedback = "That is stride 2: 32 floats over 256 bytes, 8 sectors. At stride 8 "
                  .. "each float needs its own sector: 32 sectors, 12.5% used." },
      },
    },
    quiz {
      id = "timeline",
      question = "A timeline shows 2000 kernels of 5 us each, with a gap of 20 us after each "
              .. "while the host waits in cudaStreamSynchronize and then launches the next. "
              .. "Which change saves the most?",
      choices = {
        { text = "Make each kernel twice as fast.",
          feedback = "That saves 2000 * 2.5 us = 5 ms of a 50 ms run (2000 * 25 us). The "
                  .. "gaps, 40 ms, are four fifths of the time: the kernels are not where it "
                  .. "goes." },
        { text = "Drop the synchronisation after each launch, so launches queue up while "
              .. "the GPU works: up to 40 of the 50 ms.",
          correct = true,
          feedback = "Right. Launches on one stream already run in order; synchronise only "
                  .. "where the host reads a result. With the launches queued ahead, the "
                  .. "GPU goes from one kernel to the next; fusing kernels saves more still." },
        { text = "Use more threads per block so the GPU is better occupied.",
          feedback = "Occupancy acts inside the 5 us kernels, 10 ms of the run. The GPU is "
                  .. "idle 40 ms in the gaps, waiting for the host, and no launch shape "
                  .. "changes that." },
      },
    },
  },

  milestones = {
    milestone {
      id = "optimised",
      text = "Profiling report with optimisations applied (3x over the starting version, end to end)",
      check = checks.all(
        checks.at_least("speedup_starter", 3, "x"),
        function(r)
          local x = r.exercise
          if x == nil or x.status == "error" then return nil end
          if x.has_report == true then return true end
          return false, nil, "no report.md beside your kernel: write it with 'cudalab report profiling'"
        end),
    },
  },
}
