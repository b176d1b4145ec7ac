-- Matrix multiplication: seven FP32 GEMM kernels, from one thread per output
-- to warp tiling, measured against cuBLAS.
return lab {
  id = "matmul",
  title = "Matrix multiplication",
  summary = "FP32 GEMM from one thread per output to shared-memory tiles, register "
         .. "blocking and warp tiles, against cuBLAS.",
  order = 2,
  problem = "sgemm",
  library = "cublas",
  sizes = { "1024x1024x1024", "2048x2048x2048", "4096x4096x4096" },
  time_limit = 180,

  steps = {
    step "The workhorse of deep learning" [[
      Most of the arithmetic in deep learning is matrix multiplication.
      A linear layer multiplies a batch of activations by a weight matrix;
      attention multiplies queries by keys and scores by values; the
      backward pass does the same with transposes.  A faster GEMM
      (general matrix multiply) makes nearly every model faster.

      Here `C = A x B` with A of M x K, B of K x N, all FP32 and
      row-major; the sizes read MxNxK.  Each output is a dot product of
      length K, so the product costs `2*M*N*K` FLOPs (a multiply and an
      add per term) over only `M*K + K*N + M*N` floats.

      | at 4096 | value |
      |---|---|
      | arithmetic | 137 GFLOP |
      | data, read once | 201 MB |
      | FLOPs per byte | 683 |

      Unlike a sum, GEMM has far more arithmetic than data: every element
      of A is used by N outputs and every element of B by M.  But that
      reuse is only potential.  A kernel that fetches both operands from
      global memory for every multiply-add moves 8 bytes per 2 FLOPs.
      Every rung of this lab answers one question: **how many times is a
      value used once it has been loaded?**
    ]],

    step "Reading the table: the roofline" [[
      Press `s` until **4096x4096x4096** is selected, then `R` to run
      every rung with cuBLAS (`cublasSgemm`) and the CPU.  The rate column
      shows **TFLOP/s** = `2*M*N*K` / time; **x lib** is the speed as a
      fraction of cuBLAS (0.5x: twice as slow).  The first run at 4096
      also times the CPU product, which takes a while; that timing is
      kept, so later runs skip it.

      Is GEMM limited by memory or by arithmetic?  The **roofline** model
      answers with two numbers from the Device pane:

      - **FP32**: the peak FLOP rate (multiprocessors x FP32 lanes x 2
        x clock);
      - **BW**: the copy bandwidth measured on this GPU.

      Their ratio is the **ridge point**: the FLOPs a kernel must do per
      byte of memory traffic before arithmetic, not memory, limits it.
      On an H200: 66.9 TFLOP/s / 4.13 TB/s = **16 FLOP/byte**.

      The problem's own intensity is `2*M*N*K / (4*(M*K + K*N + M*N))`:
      683 FLOP/byte at 4096, 171 at 1024.  Work out your ridge from your
      Device pane: a 4096 SGEMM sits far to its right, **compute-bound**.
      So the **%peak** column here is the share of the FP32 peak, and that
      is the honest yardstick.  On an H200 cuBLAS reached 51.3 TFLOP/s,
      77% of that peak; the datasheet figure assumes every lane retires an
      FMA every cycle at full clock.

      `Enter` on a row shows its bandwidth too, counting each matrix once:
      about 75 GB/s for cuBLAS on an H200, 2% of the copy bandwidth.  Far
      from the memory roof: only the arithmetic can be the limit.
    ]],

    step "Rung 1 to 2: coalescing" [[
      The first rung, `naive`, gives each thread one element of C:

      ```
      float acc = 0.0f;
      for (int k = 0; k < K; k++)
          acc += A[row * K + k] * B[k * N + col];
      C[row * N + col] = acc;
      ```

      Its flaw is in the index mapping: `threadIdx.x` picks the *row*.
      The 32 threads of a warp then read 32 values of A that are K floats
      apart, and write 32 values of C that are N floats apart.  Memory is
      moved in 32-byte sectors, so each thread's 4 bytes costs a sector of
      its own: the warp moves 1 KiB to use 128 bytes.

      The second rung, `coalesced`, only swaps the roles: `threadIdx.x`
      picks the *column*.  Now, at each `k`:

      - the warp reads 32 neighbouring floats of B, 128 contiguous bytes
        in 4 sectors;
      - all 32 threads read the same value of A, one fetch broadcast to
        the whole warp;
      - the final stores to C are contiguous too.

      **Compare `naive` and `coalesced`: the arithmetic is identical; the
      gap is how a warp's addresses fall into memory.**  On an H200 at
      4096: 276 ms against 23 ms, 0.5 against 5.9 TFLOP/s.
    ]],

    step "Rung 3: shared-memory tiles" [[
      `coalesced` still loads each element of A and B from global memory
      once per output that uses it: 4096 times at 4096.  Caches catch part
      of it, not enough.  The third rung, `smem_tiled`, makes the reuse
      explicit.  A 32x32 block of threads owns a 32x32 tile of C and walks
      K in slices of 32:

      ```
      As[ty][tx] = A[...];  Bs[ty][tx] = B[...];
      __syncthreads();
      for (int k = 0; k < 32; k++)
          acc += As[ty][k] * Bs[k][tx];
      __syncthreads();
      ```

      Each global value is now loaded once per block and read 32 times
      from **shared memory**, the fast on-chip store that a block shares.
      The first barrier makes sure the tile is complete before anyone
      reads it; the second, that nobody overwrites it while others still
      read.

      **Compare `coalesced` and `smem_tiled`.**  On an H200: 5.9 to 8.7
      TFLOP/s, a smaller step than you might expect.  The inner loop now
      issues two shared-memory loads for every FMA: shared memory is fast,
      but those loads take issue slots and bandwidth of their own, and the
      loop spends more instructions fetching than computing.  The next
      rungs cut the loads down.
    ]],

    step "Rungs 4 and 5: register blocking" [[
      Registers are the only storage faster than shared memory.  The next
      two rungs give each thread **several outputs**, so that a value read
      from shared memory into a register serves several multiply-adds.

      - `blocktile_1d`: a block of 512 threads computes a 64x64 tile, and
        each thread a column of 8 outputs.  Per step of k it keeps one
        value of B in a register and uses it against 8 values of A: 9
        shared reads for 8 FMAs, where `smem_tiled` needed 16.
      - `blocktile_2d`: 256 threads compute a 128x128 tile, each thread an
        **8x8 patch**.  Per step of k it loads 8 values of A and 8 of B
        into registers and does all 64 products (an outer product): 16
        shared reads for 64 FMAs.

      **Compare `smem_tiled`, `blocktile_1d` and `blocktile_2d`.**  On an
      H200 the 1-D rung nearly doubled the rate (8.7 to 16.1 TFLOP/s),
      and the 2-D rung was *no faster* (15.5).  Its arithmetic is ready,
      the rest is not:

      - neighbouring threads read B from shared memory 8 words apart, a
        4-way bank conflict;
      - it fills its tiles one float at a time;
      - it needs 168 registers a thread (see `bench/KERNELS.md`), so only
        one block of 256 threads fits on a multiprocessor.

      Fewer resident warps means less work to hide latency behind:
      **occupancy** is a trade-off, not a free lunch.
    ]],

    step "Rungs 6 and 7: vector loads and warp tiles" [[
      `vectorized` keeps the 8x8 patches and fixes the loads:

      - global memory is read as `float4`, 16 bytes an instruction;
      - the tile of A is stored **transposed** in shared memory, so the 8
        values of A a thread needs are contiguous and can be read as two
        `float4`, like the 8 values of B.

      Fewer instructions per FMA leave more issue slots for the FMAs.

      `warptile` adds a level between block and thread.  Each warp owns a
      64x32 part of the 128x128 block tile, and each thread's 8x8 outputs
      are four 4x4 pieces spread over it, so a warp's shared-memory reads
      touch few words and no bank twice.  The next slice of A and B is
      copied into a second shared buffer (`cp.async`) while the warps
      compute on the current one.  Block tile in shared memory, warp tile,
      thread tile in registers: the structure of library kernels.

      **Compare `blocktile_2d`, `vectorized`, `warptile` and `cuBLAS`.**
      On an H200: 15.5, 33.7, 44.8 and 51.3 TFLOP/s; the warp tile is
      0.87x cuBLAS.  In its inner loop 84% of the instructions are FMAs.
    ]],

    step "Where each rung sits on the roofline" [[
      A block that computes a BM x BN tile of C loads `BM + BN` floats of
      A and B for each step of k and does `2*BM*BN` FLOPs with them.  Per
      byte loaded from global memory that is `BM*BN / (2*(BM + BN))`:

      | rungs | tile of C | FLOP/byte |
      |---|---|---|
      | `naive`, `coalesced` | 1 output | 0.25 |
      | `smem_tiled` | 32x32 | 8 |
      | `blocktile_1d` | 64x64 | 16 |
      | last three | 128x128 | 32 |

      Put those beside your ridge (16 FLOP/byte on an H200):

      - below the ridge, a rung waits on memory, whatever its arithmetic;
      - at 32 FLOP/byte the big tiles are clear of it, and what remains
        is the cost of *instructions*: loads, address arithmetic and
        barriers issued beside the FMAs.  Those rungs win by issuing
        fewer non-FMA instructions.

      This is a rough model: the L2 cache serves part of the traffic at
      more than DRAM speed, so rungs left of the ridge do better than it
      predicts.  Read the **%peak** column with it.  On an H200 the seven
      rungs reached about 1, 9, 13, 24, 23, 50 and 67% of the FP32 peak,
      and cuBLAS 77%.
    ]],

    step "Your turn" [[
      Your kernel is `starter.cu` and its launcher `starter.lua`, copied
      into your workspace when you opened the lab.  The starter computes
      one output per thread with `threadIdx.x` on the columns, like the
      `coalesced` rung, in 16x16 blocks.

      **Milestone:** correct results **within 2x of cuBLAS** (0.5x or
      more in the x lib column of `your kernel`) at the largest size you
      have measured; measure at 4096.  On the H200 ladder that line falls
      between `blocktile_2d` (0.30x) and `vectorized` (0.66x): tiles
      alone will not reach it, register blocking and wide loads will.
      The second milestone is the quiz on shared memory: select it in the
      Milestones pane and press `Enter`.

      | key | what it does |
      |---|---|
      | `e` | edit your kernel in `$VISUAL` or `$EDITOR` |
      | save | compiles and runs your kernel |
      | `r` / `R` | run the selected row / every row |
      | `s` / `S` | next / previous size |
      | `Enter` | a row's figures, and why it failed |
      | `X` | reset to the starter (yours is backed up) |

      The check compares with a double-precision product (relative
      tolerance 1e-4) on fresh random inputs.  Watch the spread: compare
      two versions only when their gap is larger than it.

      Five hints go from a nudge to an outline of a solution:
      shared-memory tiles; several outputs per thread; an 8x8 outer
      product from registers; `float4` loads with a transposed A tile;
      and measuring honestly.  `H` shows them one at a time:
      read one, try it, measure, then press `H` for the next.
    ]],
  },

  variants = {
    variant {
      id = "naive", title = "Naive, one thread per output",
      kernel = "sgemm_naive",
      why = "Each thread computes one C element straight from global memory; warps read A "
         .. "and C with large strides, so nothing coalesces.",
    },
    variant {
      id = "coalesced", title = "Coalesced thread mapping",
      kernel = "sgemm_coalesced",
      why = "Consecutive threads take consecutive columns, so a warp reads B and writes C "
         .. "in single transactions and A becomes a broadcast.",
    },
    variant {
      id = "smem_tiled", title = "Shared-memory tiles",
      kernel = "sgemm_smem_tiled",
      why = "A block stages 32x32 tiles of A and B in shared memory, reusing each global "
         .. "load 32 times between two barriers.",
    },
    variant {
      id = "blocktile_1d", title = "1-D register blocking",
      kernel = "sgemm_blocktile_1d",
      why = "Each thread computes a column of 8 outputs, reusing one B value from a "
         .. "register for 8 multiply-adds.",
    },
    variant {
      id = "blocktile_2d", title = "2-D register blocking",
      kernel = "sgemm_blocktile_2d",
      why = "Each thread computes an 8x8 patch as an outer product: 64 FMAs for 16 "
         .. "shared-memory reads.",
    },
    variant {
      id = "vectorized", title = "float4 loads, transposed A tile",
      kernel = "sgemm_vectorized",
      why = "16-byte global loads and an A tile stored transposed so shared reads are "
         .. "vectorised too: fewer instructions per FMA.",
    },
    variant {
      id = "warptile", title = "Warp tiling",
      kernel = "sgemm_warptile",
      why = "Adds a per-warp tile between block and thread and copies the next slice while "
         .. "computing, as library kernels do.",
    },
  },

  exercise = exercise {
    kernel = "starter.cu",
    launcher = "starter.lua",
    hints = {
      [[Your starter already has threadIdx.x on the columns, so its
        loads coalesce.  What it lacks is reuse: each element of A is
        fetched from global memory by every thread of its row of C.
        Stage tiles in shared memory so a block fetches each element
        once.  The rows `coalesced` and `smem_tiled` show what that is
        worth.]],
      [[Tiles: with the starter's 16x16 blocks, declare
        __shared__ float As[16][16], Bs[16][16].  Loop over K in steps
        of 16: each thread loads one element of A and one of B (zero
        when the row or column is past the matrix edge), then
        __syncthreads(), then 16 multiply-adds from As and Bs, then
        __syncthreads() again before the next slice.]],
      [[Several outputs per thread: let a block of 256 threads compute
        a 128x128 tile of C, each thread an 8x8 patch held in a
        float acc[8][8] in registers, walking K in slices of 8 (tiles
        As of 128x8 and Bs of 8x128 in shared memory).  The launcher
        changes with it: block = 256 and
        grid = { ceil_div(args.N, 128), ceil_div(args.M, 128) }.]],
      [[Inside each slice, for each k: copy the thread's 8 values of A
        and 8 of B from shared memory into float a[8], b[8], then
        acc[i][j] += a[i] * b[j] for all 64 pairs.  Store the A tile
        transposed (As[k][m]) so a thread's 8 values of A are
        contiguous, and read both a and b as float4.]],
      [[Load global memory as float4 too: K and N are multiples of 4 at
        every size of this lab, and the buffers cudalab passes start on
        256-byte boundaries.  Add __launch_bounds__(256) to the kernel.  Compare at
        4096, where launch overhead and partial tiles matter least, and
        trust a gap only when it is larger than the spread.]],
    },
  },

  quizzes = {
    quiz {
      id = "shared_memory",
      question = "When does staging data in shared memory make a kernel faster?",
      choices = {
        { text = "Always: shared memory is faster than global memory, so copying the "
              .. "inputs there first speeds up any kernel.",
          feedback = "Not for data used once. The copy costs a global load, a shared "
                  .. "store, a barrier and a shared load; in a vector add, where each "
                  .. "value is used once, that is pure overhead." },
        { text = "When the data is too large to fit in global memory.",
          feedback = "Shared memory is tiny: tens to a couple of hundred KiB per "
                  .. "multiprocessor against many GiB of global memory. It holds tiles of "
                  .. "a problem, never the whole problem." },
        { text = "When the threads of a block use the same global values many times, so "
              .. "one load can serve many reads.",
          correct = true,
          feedback = "Yes. Shared memory pays through reuse: a 32x32 GEMM tile serves each "
                  .. "loaded value 32 times. The other good use is reordering accesses so "
                  .. "that global memory is read and written coalesced, as in a tiled "
                  .. "transpose." },
        { text = "When different blocks need to exchange partial results.",
          feedback = "Shared memory belongs to one block and lives only while that block "
                  .. "runs; other blocks cannot see it. Blocks exchange data through "
                  .. "global memory: atomics, or a second kernel." },
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
