-- GPU basics: the first hours of the course.  Threads, warps and grids,
-- SMs and occupancy, registers and spills, the memory hierarchy, atomics,
-- fences and unified memory, each next to a measurement, and three kernels
-- to write: a SAXPY, a histogram and a SAXPY over managed memory.
return lab {
  id = "basics",
  title = "GPU basics: threads, warps, memory",
  summary = "Warps and divergence, grids, occupancy, the memory hierarchy, atomics, "
         .. "fences and unified memory, measured; then SAXPY, a histogram and managed memory.",
  order = 0,
  problem = "basics",
  time_limit = 180,

  steps = {
    step "Threads, warps and SIMT" [[
      A CUDA kernel is one function that many threads run at once, each on
      its own data.  You launch it over a **grid** of **blocks**, each
      block a group of threads (at most 1024):

      ```
      saxpy<<<blocks, threads_per_block>>>(n, a, x, y, z);
      ```

      The hardware does not schedule threads one by one.  It groups the
      threads of a block, in order, into **warps** of 32: threads 0-31
      form the first warp, 32-63 the second.  A warp issues one
      instruction at a time for all its lanes (**SIMT**: single
      instruction, multiple threads).  When the threads of a warp
      disagree at an `if`, the warp runs both sides one after the other,
      with the lanes that did not take a side masked off: the warp has
      **diverged**, and both sides cost their full time.

      The `divergence` experiment gives half the elements one loop and
      half another, so the work never changes; only which threads take
      which loop does.  In `div_warps` every other warp takes the second
      loop and no warp diverges.  In `div_halves` the upper 16 lanes of
      every warp take it, in `div_lanes` the odd lanes: every warp now
      runs both loops.  Press `R` to run the experiments, then compare
      the times of the three rows (`Enter` on a row tells how it was
      measured).  On an H100 `div_warps` took 0.50 ms and both
      divergent rows 0.97 ms: 1.95x the time for the same work.
      Divergence is a property of warps, not of the code: an `if` that
      splits the threads along warp boundaries costs nothing extra.
    ]],

    step "Indexing threads and sizing the grid" [[
      Inside a kernel each thread finds its element from built-in
      variables: `threadIdx.x` (its place in the block), `blockIdx.x`
      (its block's place in the grid) and `blockDim.x` (threads a block):

      ```
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n)                // the bounds check
          z[i] = a * x[i] + y[i];
      ```

      (Past 2^31 elements the product overflows an `int`: compute it in
      `long long` there.)

      With 256 threads a block, n elements need ceil(n / 256) blocks,
      `(n + 255) / 256` in integers.  Round down instead and the last
      elements are never written; the last block usually has threads
      past the end, and the bounds check keeps them from reading and
      writing past the arrays.  In two dimensions the same holds per
      axis: thread (tx, ty) of block (bx, by) of 16x16 threads works on
      row `by * 16 + ty`, column `bx * 16 + tx`, element
      `row * width + col` of a row-major array.

      A **grid-stride loop** decouples the grid from n: each thread
      starts at its i and steps by the whole grid's thread count,
      `gridDim.x * blockDim.x`, so any grid covers any n and one launch
      shape fits every size.

      ```
      for (; i < n; i += gridDim.x * blockDim.x)
          z[i] = a * x[i] + y[i];
      ```

      Pick threads a block as a multiple of 32 (256 is a good default)
      and enough blocks to fill the GPU: a grid of a few blocks leaves
      most of the chip idle.  The SAXPY exercise shows three launches of
      one kernel: `saxpy_one_block` (a single block looping over all of
      n), `saxpy_per_element` (ceil(n / 256) blocks, one element a
      thread) and `saxpy_grid_stride` (a grid-stride loop over one wave
      of blocks).  Press `x` until the exercise `saxpy` is picked, `r` on
      a row to run it, and compare them with the `device copy` row.  At
      2^26+1 on an H100: one block 109 ms, the other two 0.29 ms, 92% and
      93% of the copy bandwidth.
    ]],

    step "SMs, occupancy, registers and spills" [[
      A GPU is a set of **streaming multiprocessors** (SMs).  Each block
      runs on one SM, and an SM keeps many warps resident at once,
      switching to a ready warp whenever one waits for memory.  That is
      how a GPU hides latency: by having other work in flight.
      **Occupancy** is the share of an SM's warp slots that are filled.

      Four limits decide how many blocks an SM holds at once, and they
      differ between GPUs (`cudaGetDeviceProperties` reports yours:
      `maxThreadsPerMultiProcessor`, `maxBlocksPerMultiProcessor`,
      `regsPerMultiprocessor`, `sharedMemPerMultiprocessor`):

      | limit | sm_75 | sm_80 | sm_86 | sm_89 | sm_90 |
      |---|---|---|---|---|---|
      | threads | 1024 | 2048 | 1536 | 1536 | 2048 |
      | blocks | 16 | 32 | 16 | 24 | 32 |
      | registers | 64K | 64K | 64K | 64K | 64K |
      | shared KiB | 64 | 164 | 100 | 100 | 228 |

      sm_75 is the RTX 20 series, sm_80 the A100, sm_86 the RTX 30,
      sm_89 the RTX 40, sm_90 the H100 and H200.  The registers are 32-bit
      and shared by every resident thread; the shared memory is what the
      SM can give all its blocks together (one block may take 48 KiB, or
      more if the kernel opts in).  A block fits only whole, so the
      tightest limit rounds down.  A kernel that needs 128 registers a
      thread fits at most 65536 / 128 = 512 threads: 25% of an H100's 2048, a third of an RTX 30's 1536, and
      with blocks of 1024 threads not even one block (the launch fails).
      A kernel of 32-thread blocks is held to the block slots: 32 x 32 =
      1024 threads on an H100, half its thread slots, and 16 x 32 = 512 of
      1536 on an RTX 30.  The CUDA occupancy calculator, and the runtime's
      `cudaOccupancyMaxActiveBlocksPerMultiprocessor`, do this sum for you.

      The `occupancy` experiment runs one walk through a small table
      that is limited by latency (each load waits for the one before),
      keeping 8 to 128 counts in registers (`occ_r8` to `occ_r128`),
      then the 128 again under `__launch_bounds__(256, 4)`
      (`occ_spill`), which promises four blocks of 256 an SM and so
      allows 64 registers a thread.  What does not fit **spills** to
      local memory: a per-thread stack in DRAM, cached in L1.  ptxas
      reports it (`bytes spill stores`) and the row quotes the report.
      The last rows (`occ_smem_4`, `occ_smem_2`, `occ_smem_1`) keep 8
      counts but reserve enough shared memory a block that only 4, 2 or
      1 blocks fit an SM.  Each row shows registers, occupancy and the
      waves the same grid needs: read the time against them.

      On an H100: 32, 48 and 80 registers (100%, 62.5%, 37.5%) took
      0.28 to 0.31 ms, 198 registers (12.5%) 0.69 ms; the spilling
      variant, back at 50%, 0.95 ms; shared memory for 4, 2 and 1 blocks
      0.29, 0.38 and 0.68 ms.  Occupancy is a means, not a goal: past
      what hides the latency, more warps bought nothing here, and
      spilling to win occupancy cost more than it gained.
    ]],

    step "The memory hierarchy and shared memory" [[
      Going down the hierarchy, memory gets larger and slower:

      - **registers**: private to a thread, read in the same cycle;
      - **shared memory**: per block, on the SM, in 32 banks of 4 bytes;
        explicitly managed by your code (`__shared__`);
      - **L1 and L2 caches**: L1 per SM, L2 shared by all SMs, tens of MiB;
      - **global memory** (DRAM, HBM on data-centre GPUs): gigabytes,
        hundreds of cycles away, read in 32-byte sectors, so a warp
        whose threads read neighbouring words (a **coalesced** access)
        uses every byte it fetches.

      The `hierarchy` experiment reads float4s in one coalesced pattern
      from each level: `lvl_dram` streams an array much larger than the
      L2, `lvl_l2` reads a quarter of the L2's size again and again,
      `lvl_shared` rereads a 32 KiB tile each block loaded into shared
      memory, `lvl_regs` adds a value already in registers.  The rows
      give GB/s and set each level beside a figure of the device: DRAM
      against the copy bandwidth and the datasheet peak, shared memory
      against its bank limit (32 banks x 4 bytes a clock on every SM),
      registers against the FP32 add rate.  On an H100: DRAM 3.1 TB/s,
      the L2 7.1 TB/s, shared memory 31.5 TB/s (94% of its limit),
      registers 60 TB/s.

      Shared memory pays when a block reuses data: load a tile once from
      DRAM with coalesced reads, then read it many times from the SM, as
      a matrix product does.  For data read once it adds work and gains
      nothing: the caches already serve repeated reads of a small array.
      Whether a kernel is **memory-bound** or **compute-bound** follows
      from its arithmetic per byte: SAXPY does 2 FLOPs for 12 bytes, far
      below the tens of FLOPs per byte where today's GPUs change over, so
      its speed is its bandwidth.
    ]],

    step "Atomics: a histogram" [==[
      Many threads adding into one counter race: each reads the old
      value, adds, writes back, and concurrent updates are lost.  An
      **atomic** operation (`atomicAdd`, `atomicMax`, `atomicCAS`, ...)
      does the read-modify-write as one indivisible step.  Atomics on one
      address are carried out one after another, so their cost grows
      with contention.

      A 256-bin histogram of bytes is the textbook case:

      ```
      atomicAdd(&bins[data[i]], 1u);
      ```

      The bins start as whatever the memory held: zero them before
      adding (`args.bins:fill(0)` in a launcher).  A histogram that forgot
      counts on top of garbage, and cudalab's check catches it.

      With every byte an atomic on 256 global counters, the L2 serialises
      millions of updates on the same few addresses (`hist_global`).
      **Privatisation** fixes it: each block counts into 256 counters of
      its own in shared memory (atomics there are cheap and contend only
      within the block), then adds its counts to the global bins once:
      256 global atomics a block instead of one a byte (`hist_shared`,
      which also reads four bytes a load).  Press `x` to pick the
      exercise `histogram` and compare the two rows: over 2^26 bytes on
      an H100, 17.3 ms against 0.053 ms.
    ]==],

    step "Memory fences between blocks" [[
      `__syncthreads()` orders memory only inside a block.  Between
      blocks, nothing orders two writes as another block sees them: the
      compiler may reorder independent stores, and the memory system may
      make them visible in a different order.  A block that writes a
      payload and then a flag, for a second block that waits for the flag
      and then reads the payload, can have the second block see the new
      flag and the old payload.

      `__threadfence()` is the fix: every write the thread made before
      the fence is visible to all threads of the grid before any write it
      makes after.  The producer fences between payload and flag; the
      consumer fences between reading the flag and reading the payload,
      so its reads are not moved ahead either.  (C++ atomics with release
      and acquire order, `cuda::atomic_ref`, say the same thing.)

      Two more things make such a hand-off work.  The consumer must read
      the flag through a `volatile` pointer or an atomic load with acquire
      order (`cuda::atomic_ref<int>(flag).load(cuda::memory_order_acquire)`):
      a plain load may be kept in a register, or served from the SM's L1,
      and the loop then spins on a stale value forever.  And blocks that
      wait for each other must all be resident at once.  Blocks are
      started as SM slots free up, in no promised order: a waiting block
      holds its slot, and when every slot is held by a waiter, the block
      they wait for is never started (deadlock).  Size such a grid from
      the occupancy (`cudaOccupancyMaxActiveBlocksPerMultiprocessor` times
      the SMs) and launch it with `cudaLaunchCooperativeKernel`, which
      refuses a grid that cannot be resident at once.  How many blocks
      that is depends on the GPU (the table of the occupancy step), so
      never hard-code it.

      The `fences` experiment does all of this.  It launches one block of
      256 threads an SM, cooperatively, so every block is resident.  Each
      block writes a payload (every thread one float), fences, meets at
      `__syncthreads()`, and then one thread sets the block's flag.  Each
      block then reads the flag of the block half the grid away through a
      `volatile` pointer, spinning a bounded number of times (a flag that
      never comes is counted, not waited for), fences, and reads that
      block's payload, also through `volatile`.  `fence_with` fences on
      both sides and always reads the new payload.  `fence_without` drops
      both fences and counts the reads that saw an old payload.  On an
      H100 four runs of 40 million reads each counted 288, 64, 0 and 32.
      A run that counts none proves nothing about the next one, on this
      GPU or another: only the fence guarantees the order.  That row
      stays `correct` (it is a demonstration, not a check) and its note
      gives the counts; `fence_with` is `wrong` if it ever reads an old
      payload.  Atomics make one update indivisible; they do not order
      the other writes around them.
    ]],

    step "Unified memory and page migration" [[
      `cudaMallocManaged` returns **managed** memory: one pointer valid
      on the CPU and on the GPU.  The driver moves its pages to whichever
      side touches them.  When a kernel reads a page that sits in host
      memory, the GPU faults and the driver **migrates** the page (or a
      group of pages) over the link, then the kernel goes on.  From then
      on the page is in device memory, local to the GPU: a second kernel
      over the same data pays nothing more, until the CPU touches the page
      and it moves back.  No copies in your code, but the first touch of
      each page is paid inside the kernel, page by page.  (Mapped pinned
      memory, `cudaHostAlloc` with `cudaHostAllocMapped`, is the other
      way to share a pointer: it never moves, and every GPU access
      crosses the link.)  This is the behaviour of a discrete GPU on
      Linux; on Windows, managed memory is moved to the GPU in bulk when a
      kernel is launched, and where the CPU and GPU share one physical memory (DGX Spark)
      there is nowhere for a page to move.

      Two ways to pay less:

      - **prefetch**: `cudaMemPrefetchAsync(ptr, bytes, device)` moves
        the pages in bulk, in stream order, before the kernel runs
        (`gpu.prefetch(buf)` in a launcher);
      - **explicit copies**: copy into ordinary device memory with
        `cudaMemcpy` and run on the copy (the usual way with ordinary
        host memory; out of managed memory, measure it).

      The `managed` exercise is SAXPY over managed x and y that the CPU
      writes before every run, so each run starts with their pages in
      host memory.  `um_on_demand` runs the kernel on them as they are,
      `um_prefetch` prefetches x and y first, `um_copy` copies them into
      device buffers first.  Each row times the whole call, so compare
      them with each other, and with the `saxpy` exercise's rows for the
      kernel alone: the gap is the cost of moving the data.  At 2^24 on
      an H100: `um_on_demand` 17 to 19 ms, `um_prefetch` 3.2 ms, and
      `um_copy` no faster than on demand, 17 to 18 ms: copying out of
      managed memory whose pages sit on the host did not beat the
      faults there.
      Managed memory can exceed the GPU's memory (pages are evicted and
      faulted back); cudalab keeps its runs within half of the free
      device memory so that this never happens while it measures.
    ]],

    step "Your turn" [[
      This lab has three exercises; `x` picks the one that `e`, `r`, `s`
      and `H` act on, and the run table shows its rows, the experiments
      above them.  Each has its own files in your workspace, under
      `basics/<exercise>/`.

      1. **saxpy**: `z = a * x + y` over n floats.  The starter is
         correct and runs on a single block; give it a grid that covers
         the GPU, with a bounds check or a grid-stride loop.
         Milestones: **correct at the odd size 2^20+3** first, then
         **80% of the device's copy bandwidth** at 2^26+1, which counts
         only when that run is correct too: a fast wrong answer scores
         nothing.
      2. **histogram**: 256 bins over 2^26 bytes.  The starter counts
         with global atomics; privatise the bins in shared memory.
         Milestone: **correct and 5x faster than `hist_global`**.
      3. **managed**: SAXPY over managed memory the CPU wrote.  The
         starter launches on it as it is; prefetch it, or copy it.
         Milestone: **correct and twice as fast as `um_on_demand`**.

      Your row is `your kernel`, measured like every other row.  Five
      more milestones are quizzes, on warps, grids, occupancy, spills and
      atomics: select one in the Milestones pane and press `Enter`.

      | key | what it does |
      |---|---|
      | `x` | the next exercise |
      | `e` | edit your kernel |
      | `X` | reset it (yours is backed up) |
      | `r` | run the row under the cursor |
      | `R` | every experiment |
      | `s` / `S` | next / previous size |
      | `Enter` | a row's figures, why it failed |
      | `H` | the next hint |
      | `M` / `C` | memcheck / racecheck |

      `r` on `your kernel` (or saving it) runs your exercise beside its
      rungs.

      From the command line: `cudalab run basics --exercise=saxpy` (or
      `histogram`, `managed`), and `cudalab profile divergence` for an
      experiment.
    ]],
  },

  variants = {
    variant { id = "divergence", title = "Warp divergence",
              why = "The same work with a branch split by whole warps, by half of each warp, "
                 .. "and by odd lanes." },
    variant { id = "occupancy", title = "Occupancy, registers and spills",
              why = "One latency-bound walk at 8 to 128 registers' worth of values, a spilling "
                 .. "variant, and shared memory limiting blocks an SM." },
    variant { id = "hierarchy", title = "The memory hierarchy",
              why = "The same reads from DRAM, the L2, shared memory and registers, beside the "
                 .. "device's figures." },
    variant { id = "fences", title = "Memory fences",
              why = "A payload and a flag passed between blocks with and without "
                 .. "__threadfence()." },
  },

  exercises = {
    exercise {
      id = "saxpy", title = "SAXPY: indexing and grid size",
      problem = "saxpy", sizes = { "2^20+3", "2^26+1" },
      kernel = "saxpy/starter.cu", launcher = "saxpy/starter.lua",
      variants = {
        variant { id = "saxpy_one_block", title = "One block",
                  kernel = "saxpy_one_block",
                  why = "a single block of 256 threads loops over all of n: one SM works" },
        variant { id = "saxpy_per_element", title = "One element a thread",
                  kernel = "saxpy_per_element",
                  why = "ceil(n / 256) blocks, a bounds check for the last one" },
        variant { id = "saxpy_grid_stride", title = "Grid-stride loop",
                  kernel = "saxpy_grid_stride",
                  why = "one full wave of blocks, each thread striding over the grid" },
      },
      hints = {
        [[Each thread's first element is `blockIdx.x * blockDim.x +
          threadIdx.x`, computed in `long long` (n reaches 2^30, and the
          product of two ints overflows past 2^31).  The starter's loop
          starts at `threadIdx.x` and steps by `blockDim.x`, which only
          spreads the work over one block.]],
        [[Two shapes work.  One element a thread: launch `(n + 255) //
          256` blocks of 256 and guard with `if (i < n)`.  A grid-stride
          loop: start at the global index and step by `gridDim.x *
          blockDim.x`; then any grid covers n.]],
        [[For a grid-stride loop, one full wave is enough blocks:
          `gpu.device().sms` times the blocks an SM holds (8 blocks of 256
          on GPUs with 2048 threads an SM; `gpu.device().max_threads_per_sm`
          says how many yours has).  More blocks than that only queue up.]],
        [[At 2^26+1 elements the kernel moves 768 MiB: it is
          memory-bound, and the `device copy` row is the bar.  Keep the
          loads coalesced (neighbouring threads, neighbouring elements)
          and let every thread do a few elements; the arithmetic is
          free.]],
      },
    },
    exercise {
      id = "histogram", title = "A histogram with atomics",
      problem = "histogram", sizes = { "1000003", "2^26" },
      kernel = "histogram/starter.cu", launcher = "histogram/starter.lua",
      variants = {
        variant { id = "hist_global", title = "Global atomics", kernel = "hist_global",
                  why = "one atomicAdd on a global bin for every byte" },
        variant { id = "hist_shared", title = "Privatised in shared memory",
                  kernel = "hist_shared",
                  why = "per-block bins in shared memory, added to the global ones once" },
      },
      hints = {
        [[Give each block its own bins: `__shared__ unsigned int local[256];`.
          Zero them (each thread a few of the 256), `__syncthreads()`,
          count your bytes into `local` with `atomicAdd`, `__syncthreads()`
          again, then add each non-zero local bin to the global one.]],
        [[The global bins still need zeroing before the kernel runs:
          keep `args.bins:fill(0)` in the launcher.  Forgetting it shows
          as a wrong result, every bin too large by what the memory held
          before.]],
        [[Launch one full wave of blocks (`gpu.device().sms` times
          `gpu.device().max_threads_per_sm // 256` blocks of 256: 8 an SM
          on an H100, 6 on an RTX 30 or 40) with a grid-stride loop, so each block's shared
          counts cover many bytes and its 256 global atomics are few
          beside them.]],
        [[Reading one byte a thread wastes load slots.  The data Buffer
          holds four bytes an element: read `((const unsigned int *)data)[j]`
          and count its four bytes with shifts, then count the last n % 4
          bytes one at a time.]],
      },
    },
    exercise {
      id = "managed", title = "Unified memory: page faults, prefetch, copies",
      problem = "managed", sizes = { "2^22", "2^24" },
      kernel = "managed/starter.cu", launcher = "managed/starter.lua",
      variants = {
        variant { id = "um_on_demand", title = "On-demand migration",
                  kernel = "um_on_demand",
                  why = "the kernel touches the managed pages where they are and waits for "
                     .. "each fault" },
        variant { id = "um_prefetch", title = "Prefetched", kernel = "um_prefetch",
                  why = "cudaMemPrefetchAsync moves x and y in bulk before the kernel" },
        variant { id = "um_copy", title = "Explicit copies", kernel = "um_copy",
                  why = "cudaMemcpy into device buffers, then the kernel on the copies" },
      },
      hints = {
        [[The kernel is fine as it is: the time goes into page faults.
          Look at the rows `um_on_demand`, `um_prefetch` and `um_copy`
          side by side, and at the `saxpy` exercise's rows for what the
          kernel alone costs.]],
        [[`gpu.prefetch(args.x)` and `gpu.prefetch(args.y)` before the
          launch move every page of x and y to the GPU in bulk, in order
          on the launcher's stream, so the kernel starts with its data in
          device memory.]],
        [[Or copy: allocate two device Buffers once (`gpu.alloc(args.n)`,
          in a local outside the function, on the first call, which is
          not timed), `gpu.copy(dx, args.x)` and `gpu.copy(dy, args.y)`,
          and launch on `dx` and `dy`.  Compare with the `um_copy` row
          before you trust it: out of managed memory it may not beat the
          faults.]],
      },
    },
  },

  quizzes = {
    quiz {
      id = "indexing",
      question = "A kernel runs on blocks of 16x16 threads over a row-major image 1024 "
              .. "pixels wide, with row = blockIdx.y * 16 + threadIdx.y and col = "
              .. "blockIdx.x * 16 + threadIdx.x. Which element does thread (3, 5) of "
              .. "block (2, 1) touch? (Thread and block coordinates are (x, y).)",
      choices = {
        { text = "Row 21, column 35: element 21 * 1024 + 35 = 21539.",
          correct = true,
          feedback = "Right. The row is blockIdx.y * 16 + threadIdx.y = 1 * 16 + 5 = 21, the "
                  .. "column blockIdx.x * 16 + threadIdx.x = 2 * 16 + 3 = 35, and a row-major "
                  .. "array puts element (row, col) at row * width + col." },
        { text = "Row 35, column 21: element 35 * 1024 + 21 = 35861.",
          feedback = "That swaps the axes. In CUDA x is the fast axis: threads with "
                  .. "neighbouring threadIdx.x are neighbours in a warp, so x goes along a "
                  .. "row (the column index) and y down the rows; that keeps the reads "
                  .. "coalesced." },
        { text = "Thread 5 * 16 + 3 = 83 of block 1 * 64 + 2 = 66 (64 blocks a row): "
              .. "element 66 * 256 + 83 = 16979.",
          feedback = "That numbers threads as if the image were cut into blocks stored one "
                  .. "after another. The image is one row-major array: compute the row and "
                  .. "the column first, then row * width + col." },
      },
    },
    quiz {
      id = "grid",
      question = "You launch SAXPY on n = 1,000,003 elements with 256 threads a block and "
              .. "one element a thread. How many blocks, and what else does the kernel need?",
      choices = {
        { text = "3906 blocks (n / 256, rounded down); no check is needed.",
          feedback = "Rounding down leaves the last 67 elements with no thread: 3906 * 256 "
                  .. "= 999,936. Their outputs are never written, and cudalab's poisoned "
                  .. "output shows them as unwritten." },
        { text = "3907 blocks, and an if (i < n) so that the 189 threads past the end "
              .. "touch nothing.",
          correct = true,
          feedback = "Right: ceil(1,000,003 / 256) = 3907, in integers (n + 255) / 256. The "
                  .. "last block has 256 threads but only 67 elements, so the bounds check "
                  .. "keeps the other 189 from reading and writing past the arrays." },
        { text = "1,000,003 blocks of one thread each, so that no thread falls past the end.",
          feedback = "It is correct, but a block of one thread fills one lane of a 32-lane "
                  .. "warp and an SM holds only a limited number of blocks: most of the GPU "
                  .. "idles. Blocks should hold a multiple of 32 threads." },
      },
    },
    quiz {
      id = "warp",
      question = "A kernel runs in blocks of 256 threads and branches on if (threadIdx.x < 48) "
              .. "A(); else B();. How many warps of each block diverge, running both A and B?",
      choices = {
        { text = "None: every thread takes exactly one of the two sides.",
          feedback = "Each thread does take one side, but a warp issues one instruction for "
                  .. "all 32 lanes. A warp whose lanes disagree runs A with some lanes masked, "
                  .. "then B with the others: it pays for both." },
        { text = "One: warp 1 (threads 32-63), whose lanes 32-47 take A and 48-63 take B.",
          correct = true,
          feedback = "Right. Warp 0 (threads 0-31) is all below 48 and runs only A; warps 2 to "
                  .. "7 (64-255) run only B. Only warp 1 straddles 48. Split at a multiple of "
                  .. "32, say 64, and no warp diverges." },
        { text = "Two: warps 0 and 1, the warps that hold the 48 threads taking A.",
          feedback = "Warp 0 holds threads 0-31, all of them below 48: they agree and warp 0 "
                  .. "runs A alone. A warp diverges only when its own 32 lanes disagree." },
        { text = "All eight: a branch on threadIdx.x makes every warp diverge.",
          feedback = "Divergence depends on the values, not on the variable. In warps 2 to 7 "
                  .. "every lane is 64 or more, so all of them take B and none diverges." },
      },
    },
    quiz {
      id = "bound",
      question = "SAXPY reads x and y and writes z (12 bytes) for 2 FLOPs an element. On "
              .. "a GPU with 3 TB/s of memory bandwidth and 60 TFLOP/s of FP32, what limits it?",
      choices = {
        { text = "The arithmetic: 2 FLOPs for every element of a billion-element array is "
              .. "a lot of work.",
          feedback = "A million elements are 2 million FLOPs, about 33 ns at 60 TFLOP/s, "
                  .. "and 12 MB, about 4 microseconds at 3 TB/s: over a hundred times longer. "
                  .. "The arithmetic hides behind the memory traffic." },
        { text = "Memory bandwidth: at 2 / 12 FLOPs per byte it is far below the 20 FLOPs "
              .. "per byte where this GPU turns compute-bound, so it can at best run at the "
              .. "speed of its bytes.",
          correct = true,
          feedback = "Right. The ridge point is peak FLOP/s over bandwidth, 60e12 / 3e12 = "
                  .. "20 FLOPs a byte. SAXPY does 0.17: its best time is 12 n bytes / 3 TB/s, "
                  .. "so the copy bandwidth is the bar and extra arithmetic would be free." },
        { text = "Neither: launch overhead dominates any kernel this simple.",
          feedback = "For small n it does (a launch costs a few microseconds), but at 2^26 "
                  .. "elements SAXPY moves 768 MiB, a quarter of a millisecond even at 3 "
                  .. "TB/s, far more than the launch." },
      },
    },
    quiz {
      id = "occupancy",
      question = "An SM holds 2048 threads, 32 blocks and 65536 registers. Your kernel "
              .. "runs 256 threads a block and ptxas reports 96 registers a thread (no "
              .. "shared memory). What occupancy does the calculator give?",
      choices = {
        { text = "100%: 2048 / 256 = 8 blocks fit by threads.",
          feedback = "Threads are only one of the limits. The registers run out first: 8 "
                  .. "blocks would need 8 * 256 * 96 = 196,608 registers, three times what "
                  .. "the SM has." },
        { text = "25%: 65536 / (256 * 96) = 2.67, so 2 blocks, 512 of 2048 threads.",
          correct = true,
          feedback = "Right. Each block needs 256 * 96 = 24,576 registers; two fit in "
                  .. "65,536, three do not. 2 blocks of 256 threads are 16 of 64 warps: 25%. "
                  .. "Capping registers at 64 (launch bounds) would allow 4 blocks, at the "
                  .. "price of spills if the kernel needs more." },
        { text = "37.5%: 65536 / 96 = 682 threads fit, which is 2.67 blocks.",
          feedback = "Blocks are placed whole: an SM cannot run two thirds of a block, so "
                  .. "2.67 becomes 2 blocks, 512 threads. (Registers are also allocated in "
                  .. "chunks, which can only lower the count.)" },
        { text = "12.5%: more than 64 registers a thread leaves room for one block.",
          feedback = "The limit is the total: 65,536 registers for all resident threads. "
                  .. "At 96 a thread two blocks of 256 fit (49,152 registers); only past "
                  .. "128 a thread would a single block remain." },
      },
    },
    quiz {
      id = "spills",
      question = "A kernel in blocks of 256 threads compiles (-Xptxas -v) to 'Used 168 registers, "
              .. "0 bytes spill stores'. With __launch_bounds__(256, 2) it becomes 'Used 128 "
              .. "registers, 160 bytes spill stores, 160 bytes spill loads' (H100: 65536 "
              .. "registers, 2048 threads an SM). What did the bound change?",
      choices = {
        { text = "Occupancy doubles from 12.5% to 25%, so the kernel runs twice as fast.",
          feedback = "The occupancy does double: 256 * 168 = 43,008 registers let one block "
                  .. "fit, 256 * 128 = 32,768 let two. But speed follows only if the kernel "
                  .. "was short of warps, and the spills now add memory traffic: measure it." },
        { text = "One block fitted (8 of 64 warps); now two do (16 of 64), and each thread "
              .. "keeps 160 bytes in local memory: stores and loads that go through L1 and L2, "
              .. "and to DRAM when they miss.",
          correct = true,
          feedback = "Right. 65536 / 43,008 = 1.5, so one block; 65536 / 32,768 = 2. Local "
                  .. "memory is private to the thread but lives in device memory. Whether 8 "
                  .. "more warps hide more latency than the spills add is what a run tells." },
        { text = "The 160 bytes are moved to shared memory, which is as fast as registers.",
          feedback = "Spills go to local memory, a per-thread area of device memory cached in "
                  .. "L1 and L2, not to shared memory. Even an L1 hit costs tens of cycles "
                  .. "where a register costs none." },
        { text = "Nothing: ptxas only reports the spills; they are not executed.",
          feedback = "The report describes the code it generated: 160 bytes of stores and "
                  .. "160 of loads per thread, executed on every pass through that code. "
                  .. "The occ_spill row of the occupancy experiment shows what they cost." },
      },
    },
    quiz {
      id = "privatise",
      question = "Kernel A counts 2^26 bytes into 256 bins; kernel B adds 2^26 values into "
              .. "2^24 bins picked at random. Both do one global atomicAdd an element. Which "
              .. "one gains from per-block copies of its bins in shared memory?",
      choices = {
        { text = "Both: global atomics are always slow, so privatising always pays.",
          feedback = "An atomic costs little when no other thread is updating the same "
                  .. "address. What privatising removes is contention, and B has almost none; "
                  .. "its 64 MiB of bins would not fit in shared memory anyway." },
        { text = "A: 2^26 / 256 = 262,144 updates queue on each bin, while B averages 4 an "
              .. "address spread over 16 million addresses.",
          correct = true,
          feedback = "Right. Atomics on one address are done one after another, so A is "
                  .. "serialised on 256 addresses; 256 shared counters a block (1 KiB) fix it. "
                  .. "B's bins (2^24 * 4 bytes = 64 MiB) collide rarely and fit no SM." },
        { text = "B: more bins mean more atomics, so B has more to save.",
          feedback = "Both do 2^26 atomics. The cost is in the collisions: 262,144 per "
                  .. "address for A against about 4 for B. And B's 64 MiB of bins cannot be "
                  .. "copied into a block's shared memory (at most 227 KiB even on an H100)." },
      },
    },
    quiz {
      id = "coresident",
      question = "Every block b of a grid of 10,000 blocks spins until block b + 1 sets its "
              .. "flag (read through volatile); the last block waits for no one. An H100 has "
              .. "132 SMs and fits 8 of these blocks each. What happens?",
      choices = {
        { text = "It finishes: the last block sets its flag, and the chain unwinds backwards.",
          feedback = "Only 132 * 8 = 1056 blocks are resident at once, and each of them "
                  .. "waits for a successor. No resident block can finish, so no slot frees "
                  .. "and the blocks further on, the last one included, never start." },
        { text = "It hangs: the first 1056 blocks to start all wait, hold every slot, and the "
              .. "blocks they wait for can never be started.",
          correct = true,
          feedback = "Right: blocks that wait on each other must all be resident. Keep the "
                  .. "grid at most 1056 blocks and launch it with cudaLaunchCooperativeKernel "
                  .. "(which checks that), or hand out work so that no block waits on one "
                  .. "that may not have started." },
        { text = "It works but slowly: spinning blocks yield their SM to the waiting ones.",
          feedback = "A resident block keeps its slot until it exits; the hardware does not "
                  .. "swap a spinning block out for one that has not started. Spinning holds "
                  .. "the SM and wastes its issue slots." },
      },
    },
    quiz {
      id = "first_touch",
      question = "The CPU fills a 1 GiB managed array, then the GPU runs three kernels over "
              .. "it, one after another, on a discrete GPU under Linux. Where is the cost of "
              .. "moving the data paid?",
      choices = {
        { text = "In each of the three kernels: managed memory stays in host memory and every "
              .. "access crosses the link.",
          feedback = "That describes mapped pinned (zero-copy) memory. A managed page moves "
                  .. "to the GPU on its first touch and is local after that, so the second "
                  .. "and third kernels read device memory." },
        { text = "In the first kernel, page fault by page fault; the next two read pages "
              .. "already in device memory.",
          correct = true,
          feedback = "Right. The first kernel waits for each fault and migration; the others "
                  .. "run at device speed. A cudaMemPrefetchAsync before the first kernel "
                  .. "moves the pages in bulk instead, as um_prefetch does." },
        { text = "In cudaMallocManaged: the driver copies the array to the GPU when it is "
              .. "allocated.",
          feedback = "Allocation moves nothing; the pages are placed where they are first "
                  .. "touched. Here the CPU touches them first, so they start in host memory "
                  .. "and the first kernel pays to bring them over." },
      },
    },
  },

  milestones = {
    milestone {
      id = "saxpy_correct", exercise = "saxpy", size = "2^20+3", points = 1,
      text = "SAXPY correct at an odd size (bounds check and grid size)",
      check = checks.correct(),
    },
    milestone {
      id = "saxpy_bandwidth", exercise = "saxpy", size = "2^26+1", points = 2,
      text = "SAXPY at 80% or more of the device's copy bandwidth",
      check = checks.at_least("pct_peak", 80, "%"),
    },
    milestone {
      id = "histogram_5x", exercise = "histogram", size = "2^26", points = 2,
      text = "Histogram correct and 5x faster than global atomics",
      check = checks.speedup_over("hist_global", 5),
    },
    milestone {
      id = "managed_2x", exercise = "managed", size = "2^24", points = 2,
      text = "Managed-memory SAXPY twice as fast as on-demand page migration",
      check = checks.speedup_over("um_on_demand", 2),
    },
    milestone { id = "knows_warps", text = "Can explain warp execution and divergence",
                quiz = "warp" },
    milestone { id = "sizes_grids", text = "Can size a grid for n elements", quiz = "grid" },
    milestone { id = "reads_occupancy", text = "Can work out a kernel's occupancy",
                quiz = "occupancy" },
    milestone { id = "reads_spills", text = "Can read a register and spill report",
                quiz = "spills" },
    milestone { id = "privatises", text = "Knows when an atomic needs privatising",
                quiz = "privatise" },
  },
}
