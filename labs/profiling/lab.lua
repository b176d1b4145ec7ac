-- Profiling: where the time of a GPU program goes besides its kernels, and
-- how to measure it without fooling yourself.
return lab {
  id = "profiling",
  title = "Profiling and data pipelines",
  summary = "Timelines, transfers, pinned memory, streams and honest timing: finding the time a GPU program spends outside its kernels.",
  order = 4,

  steps = {
    step "Look at a timeline first" [[
      A fast kernel does not make a fast program.  A typical first GPU port
      allocates memory, copies inputs to the device, runs a kernel and copies
      the result back, and in a small measured example the copies took
      8.3 ms and 6.5 ms while the kernel took 0.17 ms.  Optimising that
      kernel further would change almost nothing.

      So the first tool is a **timeline**: one row per CPU thread and per
      GPU stream, each operation drawn as a bar from its start to its end.
      NVIDIA Nsight Systems records one for a whole program
      (`nsys profile ./app`); cudalab draws one for the runs it makes.  Read
      it for three things:

      - **gaps** on the GPU rows, where the device waits for the CPU;
      - **copies** (host to device, device to host) and how long they are
        compared with the kernels;
      - **serialisation**: operations that could overlap but run one after
        another.

      Only once the timeline is dense does it pay to look inside a kernel
      with Nsight Compute (memory throughput, occupancy, stalls).
    ]],

    step "Transfers: pageable and pinned memory" [[
      Memory from `malloc` or `new` is **pageable**: the operating system
      may move or swap its pages, so the GPU cannot read it directly.  A copy
      from pageable memory goes through a hidden staging buffer: the driver
      copies into pinned memory with the CPU, then the GPU's copy engine
      moves it over PCIe or NVLink.  Writing into freshly allocated pageable
      memory also pays for page faults on first touch.

      Memory from `cudaMallocHost` (or registered with `cudaHostRegister`)
      is **pinned** (page-locked): the copy engine reads it directly, copies
      reach the link's full speed, and they can run asynchronously while the
      CPU does other work.  The cost: pinned pages cannot be swapped, so
      pinning gigabytes takes that memory away from the rest of the system,
      and allocating pinned memory is slow.  Pin the buffers you reuse, once.

      Two more rules that every timeline confirms: one large transfer beats
      many small ones (each copy has a fixed overhead of microseconds), and
      data that stays on the GPU between steps costs nothing to move.
    ]],

    step "Overlap with streams" [[
      A **stream** is a queue of GPU work that runs in order.  Work in
      different streams may run at the same time: a kernel in one stream
      while a copy engine moves data for another.  With everything on the
      default stream, a pipeline runs copy, kernel, copy, copy, kernel, copy:
      one engine busy at a time.

      Split the input into chunks and give each chunk its own stream, with
      `cudaMemcpyAsync` from pinned memory, the kernel, and the copy back.
      While chunk 2 is being computed, chunk 3 is uploaded and chunk 1
      downloaded.  The timeline shows the bars stacked instead of in a row;
      the total approaches the longest of the three stages instead of their
      sum.  Asynchronous copies need pinned memory: from pageable memory
      they quietly become synchronous and nothing overlaps.
    ]],

    step "Access patterns decide kernel time" [[
      Inside the kernels, the profiler's memory figures usually point at the
      same few causes:

      - **Uncoalesced access**: neighbouring threads reading addresses far
        apart (a column of a row-major matrix, an array of structures read
        one field at a time).  Each warp then moves several times the bytes
        it uses.  Fix the layout (structure of arrays, transposes through
        shared memory) or the thread mapping.
      - **Bank conflicts** in shared memory, fixed by padding tiles (a
        32x33 tile instead of 32x32) or changing the index pattern.
      - **Too little parallelism**: a grid of a few blocks on a GPU with a
        hundred SMs, or so many registers per thread that few warps fit.
      - **Divergence**: branches that split warps in the hot loop.

      Arithmetic intensity (FLOPs per byte moved) tells you which ceiling
      applies: below the GPU's ratio of peak FLOP/s to bandwidth, the kernel
      is memory-bound and only bytes matter.
    ]],

    step "Timing without fooling yourself" [[
      Kernel launches are **asynchronous**: the launch returns at once and
      the CPU carries on.  A CPU timer around a launch measures the launch,
      a few microseconds, whatever the kernel does.  Time GPU work with CUDA
      events recorded in the stream (`cudaEventRecord` before and after,
      `cudaEventElapsedTime`), or synchronise before reading a CPU clock,
      knowing that a synchronisation also stalls every stream.

      More traps that make numbers lie:

      - The first launch includes one-time costs (module loading, clocks
        ramping up): warm up before timing.
      - One measurement is noise.  Repeat, and report the median with its
        spread.
      - A working set that fits in L2 cache measures the cache, not memory.
        Use inputs larger than L2, or flush it between repetitions.
      - Compare against a fast CPU baseline, not a slow reference loop, or
        the speedup is flattery.
      - A fast kernel that computes the wrong answer is worthless: check
        every output against a reference, with outputs poisoned first.
    ]],

    step "Profile, fix, measure again" [[
      The milestones of this module ask for a before-and-after: a program
      you profile, whose bottlenecks you identify (transfers, sync points,
      idle gaps), fix, and measure again with the same honest timing.  The
      second asks for a data-processing pipeline, moved from CPU to GPU, that
      runs at least 10x faster than the CPU version end to end, transfers
      included.

      Keep notes as you go: what the timeline showed, what you changed, and
      what each change bought.  A speedup you cannot explain is one you
      cannot keep.
    ]],
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
      check = checks.at_least("speedup_starter", 3, "x"),
    },
    milestone {
      id = "pipeline10x",
      text = "Data pipeline with a measured 10x+ speedup vs the CPU",
      check = checks.at_least("speedup_cpu", 10, "x"),
    },
  },
}
