-- Matrix multiplication: seven FP32 GEMM kernels, from one thread per output
-- to warp tiling, measured against cuBLAS.
return lab {
  id = "matmul",
  title = "Matrix multiplication",
  summary = "FP32 GEMM from one thread per output to shared-memory tiles, register blocking and warp tiles, against cuBLAS.",
  order = 2,
  problem = "sgemm",
  library = "cublas",
  sizes = { "1024x1024x1024", "2048x2048x2048", "4096x4096x4096" },
  time_limit = 180,

  steps = {
    step "Why matrix multiplication is different" [[
      `C = A x B` with A of size M x K and B of size K x N does 2*M*N*K
      floating-point operations (a multiply and an add per term) on only
      (M*K + K*N + M*N) floats.  At 4096 that is 137 GFLOP on 192 MiB:
      hundreds of FLOPs per byte.  Unlike a sum, GEMM *can* be limited by
      arithmetic, and a good kernel runs near the chip's FP32 peak.

      That reuse is only potential.  Each element of A is needed by N
      different outputs and each element of B by M.  A kernel that fetches
      both operands from global memory for every multiply-add moves 8 bytes
      per 2 FLOPs and is memory-bound again, hundreds of times below peak.
      Every rung of this lab is about the same question: **how many times is
      each loaded value reused before it is thrown away?**

      The sizes read MxNxK; all matrices are row-major FP32.  The table
      shows TFLOP/s and percent of the FP32 peak, and compares every kernel
      with `cublasSgemm`.
    ]],

    step "The naive kernel" [[
      One thread per element of C.  Thread (row, col) walks the K dimension,
      multiplying row `row` of A by column `col` of B.

      ```
      float acc = 0.0f;
      for (int k = 0; k < K; k++)
          acc += A[row * K + k] * B[k * N + col];
      C[row * N + col] = acc;
      ```

      It is correct and simple, and slow for a reason hidden in the index
      mapping.  If consecutive threads of a warp get consecutive *rows*, then
      at each step of the loop the warp reads 32 values of A that are K floats
      apart, and writes 32 values of C that are N floats apart.  Each of those
      accesses lands in its own memory segment: the hardware fetches 32 bytes
      to deliver 4.  The data the warp needs is scattered instead of
      **coalesced**.
    ]],

    step "Reading the table" [[
      - **TFLOP/s** = 2*M*N*K divided by the median time.  **% of peak** is
        against the FP32 rate of this GPU, so cuBLAS itself usually sits
        well below 100%.
      - **vs cuBLAS** is this kernel's speed as a fraction of the library's:
        0.5x means twice as slow.  The lab's goal is 0.5x or better.
      - A rung that is slower at 1024 than at 4096 (in TFLOP/s) is not using
        the GPU fully at small sizes: too few blocks, or too little work per
        thread to hide latency.

      Every result is checked against a double-precision CPU product with a
      relative-error tolerance, because summing 4096 products in FP32 in a
      different order gives slightly different, equally valid answers.
    ]],

    step "Coalescing and shared-memory tiles" [[
      **Coalesced**: map consecutive threads to consecutive *columns* of C.
      At each step of the loop a warp now reads one value of A (the same
      address for all 32 threads, a broadcast) and 32 consecutive values of B
      in one transaction, and writes C in consecutive addresses too.  Nothing
      else changes, and the speedup is large.

      **Shared-memory tiling** attacks reuse.  A block computing a 32x32 tile
      of C loops over K in chunks: the block cooperatively copies a 32x32 tile
      of A and one of B into shared memory, synchronises, and each thread
      does 32 multiply-adds from shared memory before the next chunk.  Each
      value fetched from global memory is now used 32 times.  Two
      `__syncthreads()` per chunk are essential: one so that no thread reads
      a tile before it is complete, one so that no thread overwrites it while
      others still read.
    ]],

    step "Register blocking: more outputs per thread" [[
      With tiles in shared memory the bottleneck becomes shared memory
      itself: every multiply-add still needs two shared loads.  The answer is
      to let each thread compute **several outputs** and keep operands in
      registers.

      - **1-D block tiling**: each thread computes a small column of results
        (say 8).  It loads one value of B into a register and reuses it for
        8 multiply-adds against 8 values of A.
      - **2-D block tiling**: each thread computes an 8x8 patch.  Per step of
        k it loads 8 values of A and 8 of B into registers and performs 64
        multiply-adds: an outer product, four FMAs per shared load instead
        of one FMA per two loads.

      Registers are the fastest storage on the GPU but also the scarcest:
      too many per thread lowers the number of resident warps (occupancy) or
      spills to slow local memory.  Block and thread tile sizes are a
      trade-off, not a free lunch.
    ]],

    step "Vector loads and warp tiles" [[
      The **vectorized** rung loads global memory with `float4` (16 bytes per
      instruction) and stores the A tile **transposed** in shared memory, so
      that the values a thread needs for its outer product are contiguous and
      can be read as `float4` too.  Fewer, wider instructions leave more issue
      slots for the FMAs.

      The **warp-tiled** rung adds a level between the block and the thread:
      each warp owns a sub-tile of the block's output, and threads are laid
      out inside it so that a warp's shared-memory reads are conflict-free
      and its global stores coalesce.  This is the structure used by
      libraries (and by CUTLASS): block tile in shared memory, warp tile,
      thread tile in registers.  At this point a hand-written FP32 kernel is
      within reach of cuBLAS on large square matrices.
    ]],

    step "Your turn" [[
      Your copy of the exercise is `starter.cu` and `starter.lua`: one thread
      per output, already mapped so that a warp walks along a row of C.
      Turn it into a tiled kernel and bring it **within 2x of cuBLAS** (0.5x
      or better in the vs cuBLAS column) at the largest size, with correct
      results.  Start from shared-memory tiles, then make each thread
      compute several outputs.  Tiles alone typically reach a fifth of
      cuBLAS and register blocking about a third; the last factor comes from
      wide loads and a careful layout of the tiles, as in the last two rungs.  Check the spread column: a kernel whose time
      varies by 20% between repetitions has not settled, and the median is
      what the milestone uses.
    ]],
  },

  variants = {
    variant {
      id = "naive", title = "Naive, one thread per output",
      kernel = "sgemm_naive",
      why = "Each thread computes one C element straight from global memory; warps read A and C with large strides, so nothing coalesces.",
    },
    variant {
      id = "coalesced", title = "Coalesced thread mapping",
      kernel = "sgemm_coalesced",
      why = "Consecutive threads take consecutive columns, so a warp reads B and writes C in single transactions and A becomes a broadcast.",
    },
    variant {
      id = "smem_tiled", title = "Shared-memory tiles",
      kernel = "sgemm_smem_tiled",
      why = "A block stages 32x32 tiles of A and B in shared memory, reusing each global load 32 times between two barriers.",
    },
    variant {
      id = "blocktile_1d", title = "1-D register blocking",
      kernel = "sgemm_blocktile_1d",
      why = "Each thread computes a column of outputs, reusing one B value from a register for several multiply-adds.",
    },
    variant {
      id = "blocktile_2d", title = "2-D register blocking",
      kernel = "sgemm_blocktile_2d",
      why = "Each thread computes a small square of outputs as an outer product, raising FMAs per shared-memory load several-fold.",
    },
    variant {
      id = "vectorized", title = "float4 loads, transposed A tile",
      kernel = "sgemm_vectorized",
      why = "16-byte global loads and an A tile stored transposed so shared reads are vectorised too: fewer instructions per FMA.",
    },
    variant {
      id = "warptile", title = "Warp tiling",
      kernel = "sgemm_warptile",
      why = "Adds a per-warp tile between block and thread, arranging accesses so warps read shared memory without conflicts, as libraries do.",
    },
  },

  exercise = exercise {
    kernel = "starter.cu",
    launcher = "starter.lua",
    hints = {
      [[Tile first: a 32x32 block loads a 32x32 tile of A and one of B into
        __shared__ arrays, calls __syncthreads(), accumulates 32 products,
        and calls __syncthreads() again before loading the next pair of
        tiles.  Guard the loads at the matrix edges: sizes need not be
        multiples of the tile.]],
      [[Then give each thread several outputs.  With a block of 256 threads
        computing a 64x64 or 128x128 tile of C, each thread keeps an 8x8
        patch of accumulators in registers.  Change the grid and block in
        starter.lua to match the new tile.]],
      [[Inside the k loop, copy the thread's slice of the A and B tiles from
        shared memory into small register arrays, then do the outer product
        from registers.  Count it: 16 shared loads for 64 FMAs.]],
      [[Load global memory with float4 when the row length allows it, and
        store the A tile transposed in shared memory so each thread reads its
        column of A as consecutive floats.]],
      [[Look at the spread column before comparing two versions, and compare
        at 4096, where launch overhead and partial tiles matter least.]],
    },
  },

  quizzes = {
    quiz {
      id = "shared_memory",
      question = "When does staging data in shared memory make a kernel faster?",
      choices = {
        { text = "When threads of a block reuse the same global values several times, so one load from global memory can serve many reads.",
          correct = true,
          feedback = "Yes. Shared memory pays off through reuse (GEMM tiles reuse each value 32 times or more) or to reorder accesses so global memory is read coalesced, as in a padded transpose." },
        { text = "Always: shared memory is faster than global memory, so copying inputs there first speeds up any kernel.",
          feedback = "A copy through shared memory costs a global load, a shared store, a barrier and a shared load. If each value is used once, as in a vector add, that is pure overhead." },
        { text = "When the data is too large for global memory.",
          feedback = "Shared memory is tiny (tens to a couple of hundred KiB per SM) compared with global memory; it holds tiles of a problem, never the problem." },
        { text = "When different blocks need to exchange partial results.",
          feedback = "Shared memory is private to one block and lives only while the block runs. Blocks exchange data through global memory (or atomics, or a second kernel)." },
      },
    },
  },

  milestones = {
    milestone {
      id = "within2x",
      text = "Tiled matrix multiplication within 2x of cuBLAS",
      check = checks.at_least("speedup_lib", 0.5, "x"),
    },
    milestone {
      id = "shared",
      text = "Understand when to use shared memory",
      quiz = "shared_memory",
    },
  },
}
