-- Profiling: where the time of a GPU program goes besides its kernels, how
-- to measure it without fooling yourself, and a slow data pipeline to make
-- fast with what the experiments show.
return lab {
  id = "profiling",
  title = "Profiling and data pipelines",
  summary = "Timelines, transfers, pinned memory, streams, access patterns and honest timing, then a slow preprocessing pipeline to profile and fix.",
  order = 4,
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
      Same arithmetic, several times apart in time.

      The fixes are in the layout (structure of arrays instead of arrays
      of structures, a transposed copy) or in which thread takes which
      element.
    ]],

    step "Launch shape and occupancy" [[
      A multiprocessor keeps many warps resident and switches between
      them to hide memory latency.  **Occupancy** is the share of its
      warp slots a kernel fills; it is limited by the block size, the
      registers each thread uses and the shared memory each block takes.

      The `blocksize` experiment runs one bandwidth-bound kernel at 32 to
      1024 threads per block and reports the occupancy the runtime
      computes for each.  Blocks of 32 threads leave many warp slots
      empty, because a multiprocessor also holds only a limited number of
      blocks; larger blocks usually reach the same bandwidth as each
      other.  Take a multiple of 32, often 256, and move on: past a
      moderate occupancy, more warps do not buy more bandwidth, and a
      grid of a few blocks on a GPU with a hundred multiprocessors is a
      far commoner problem.
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

      The `transpose` experiment shows a plain copy as the bound, then a
      transpose straight to global memory, through a shared tile, and
      through the padded tile.  Compare the last two with
      `cudalab profile transpose --ncu prof_transpose_tiled` when Nsight
      Compute is installed: it counts the conflicts.
    ]],

    step "Timing without fooling yourself" [[
      Kernel launches are **asynchronous**: the call returns as soon as
      the launch is queued.  A CPU clock around a launch measures the
      queueing, a few microseconds, whatever the kernel does.  Time GPU
      work with CUDA events recorded in its stream, or synchronise before
      reading the clock, knowing that `cudaDeviceSynchronize` also stalls
      every other stream.

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

    step "Your turn: a slow data pipeline" [[
      The exercise is a preprocessing step over a table of `rows` x
      `features` floats that starts and ends in ordinary host memory:
      standardise each column (subtract its mean, divide by its standard
      deviation), clip to [-3, 3], and write the table back.  Your
      launcher receives `args.input` and `args.output` (pageable host
      Buffers), `args.rows` and `args.features`; cudalab times each call
      from start to finish, copies included.

      The starter is correct and slow in five ways: it copies from
      pageable memory, 128 rows per copy; it waits for the device after
      every step; it uses one stream, so nothing overlaps; its statistics
      kernel gives each column one block and walks down columns; and its
      transform numbers threads column by column, so neighbouring threads
      touch addresses a row apart.  Profile it, fix it, measure again.

      **Milestones:**

      1. **profiling report with optimisations applied**: your pipeline
         correct, 3x or more faster than the starter row (the milestone
         shows by how much), and a report written with
         `cudalab report profiling`;
      2. **10x+ over the CPU**: end to end, transfers included, against
         the vectorised single-thread CPU baseline.

      `cudalab report profiling` runs the starter and your pipeline,
      records one call of each on a timeline, and writes
      `profiling/report.md` in your workspace: a before-and-after table,
      each timeline summarised (busy time per lane, number and size of
      copies, pinned or pageable, idle gaps, copy and compute overlap), what
      changed between them, and a section for your own notes that is kept
      when the report is rewritten.  The two traces are written beside it.

      What limits the second milestone: the table crosses the link twice,
      and the statistics need every row before any row can be
      transformed, so the download cannot start before the upload ends.
      A row's GB/s counts the table in and out per second of the whole
      run, so it cannot beat the pinned copy rate of the `transfers`
      experiment.  The CPU rows' GB/s count the same bytes: one core
      manages several GB/s, only a few times below the 25 GB/s or so a
      PCIe 4.0 x16 link carries each way, so on such a machine 10x is
      out of reach whatever the kernels do.  PCIe 5.0 doubles the link,
      and a link like NVLink-C2C between a Grace CPU and a Hopper GPU
      puts 10x within reach.  The figure is the honest one: a speedup
      measured without the copies would not be.

      | key | what it does |
      |---|---|
      | `e` | edit your kernel (`X` resets it, yours is backed up) |
      | `r` | run the selected row: on `your kernel`, the starter, yours and the CPU |
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
      why = "A copy as the bound, then naive, tiled and padded (conflict-free) "
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
    sizes = { "1048576x16", "4194304x32" },
    kernel = "starter.cu",
    launcher = "starter.lua",
    hints = {
      [[Start with the report: `cudalab report profiling` times the
        starter, and its timeline shows where the time goes.  Count the
        copies, look at their size and whether their host memory is
        pinned, and at the gaps between them.]],
      [[Fewer, larger copies first.  One copy of the whole table each
        way, with the synchronisations after every chunk gone, is already
        several times faster than the starter.  gpu.copy(dst, src) with
        no byte count copies all of src.]],
      [[The kernels: make neighbouring threads handle neighbouring
        elements.  For the transform, thread i takes element i, and its
        column is i % features.  For the statistics, give each thread one
        column of a group of rows, with the threads of a warp on
        neighbouring columns, and add each block's partial sums into a
        per-column total with atomicAdd on doubles.  Keep the sums in
        double: float sums of values around 100 lose the variance.]],
      [[Pinned staging: allocate a few pinned buffers of a few MiB with
        gpu.host_alloc in the first call (it is not timed), and keep them
        in locals outside the function.  gpu.copy between two host
        Buffers waits for the stream you give it, then copies with the
        CPU: copy a chunk of args.input into a staging buffer, then from
        the staging buffer to the device on that chunk's stream.]],
      [[Overlap: give the chunks to two or three streams (gpu.stream()),
        each doing copy in, then the column sums of that chunk.  Make
        every stream wait (s:wait(event)) for the event that marks the
        zeroed sums, and the finishing kernel wait for all of them.  Then
        transform and copy back chunk by chunk the same way, and copy a
        chunk into args.output when its stream has brought it back.
        Buffer views (b:view(first, count)) name a chunk without copying.]],
    },
  },

  quizzes = {
    quiz {
      id = "timing",
      question = "You time a kernel launch with a CPU clock and get 8 microseconds whatever the input size. What is the most likely explanation?",
      choices = {
        { text = "The launch is asynchronous: the timer measured how long it took to queue the kernel, not to run it.",
          correct = true,
          feedback = "Yes. Record CUDA events around the kernel in its stream (or synchronise before stopping the clock) to measure the work itself." },
        { text = "The GPU is so fast that every size finishes in 8 microseconds.",
          feedback = "Run time grows with the data: a kernel reading a gigabyte cannot finish in microseconds on any GPU. A constant time is the sign of measuring something else." },
        { text = "The kernel failed to launch, so nothing ran.",
          feedback = "Possible, and worth checking with cudaGetLastError, but a failed launch is not what makes a CPU timer around an asynchronous call constant." },
      },
    },
  },

  milestones = {
    milestone {
      id = "optimised",
      text = "Profiling report with optimisations applied (3x over the starting version)",
      check = checks.all(
        checks.at_least("speedup_starter", 3, "x"),
        function(r)
          local x = r.exercise
          if x == nil or x.status == "error" then return nil end
          return x.has_report == true
        end),
    },
    milestone {
      id = "pipeline10x",
      text = "Data pipeline with a measured 10x+ speedup vs the CPU (end to end, transfers included)",
      check = checks.at_least("speedup_cpu", 10, "x"),
    },
  },
}
