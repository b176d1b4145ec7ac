-- Matrix multiplication: seven FP32 GEMM kernels, from one thread per output
-- to warp tiling, then three on the tensor cores (WMMA in TF32 and BF16, and a
-- cp.async pipeline), each measured against cuBLAS at the same precision.
return lab {
  id = "matmul",
  title = "Matrix multiplication",
  summary = "GEMM from one thread per output to shared-memory tiles, register "
         .. "blocking and warp tiles, then tensor cores in TF32 and BF16, against cuBLAS.",
  order = 4,
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

      **Compare `smem_tiled`, `blocktile_1d` and `blocktile_2d`.**  Left
      to itself the compiler gives `blocktile_2d` 160 registers a thread
      (`bench/KERNELS.md` lists every rung's), so only one block of 256
      threads fits on a multiprocessor, 8 warps to hide every wait.  On an
      H200 that version was *no faster* than the 1-D rung.  The rung asks
      for two blocks with `__launch_bounds__(256, 2)`, which caps it at
      128 registers: 16 warps a multiprocessor, and no spills.
      **Occupancy** is a trade-off, not a free lunch: more registers a
      thread mean fewer threads.

      At 1024 there is a second trap.  128x128 tiles cut a 1024 x 1024
      output into 64 blocks; an H100 has 132 multiprocessors, so half of
      it would idle.  There `blocktile_2d` and `vectorized` switch to
      64x64 tiles of 4x4 patches, four times the blocks.  A block that
      would leave part of the GPU idle is a wasted tile, whatever its
      arithmetic: libraries pick their tile per size for this reason.

      Even so, at 1024 `blocktile_2d` stays slower than `blocktile_1d`
      (on an H100: 234 us against 136 us), though it is the faster of the
      two at 2048 and 4096.  Both cut the output into the same 256 tiles
      of 64x64, under two a multiprocessor.  But `blocktile_1d` puts 512
      threads on a tile and `blocktile_2d` 256, so a multiprocessor with
      two tiles runs 32 warps of one and 16 of the other.  Nsight Compute
      on an H100: 7.6 active warps per scheduler against 3.9, and no warp
      ready to issue in 51% of the cycles against 69%.  Each slice starts with loads
      from global memory and a barrier; with half the warps there is
      half the other work to do while they arrive.  At 4096, with 1024
      tiles queued, every multiprocessor keeps its blocks busy and the 2-D
      rung's fewer shared-memory reads win.  More work a thread pays only
      when enough threads are left.
    ]],

    step "Rungs 6 and 7: vector loads and warp tiles" [[
      `vectorized` keeps the 8x8 patches and fixes the loads:

      - global memory is read as `float4`, 16 bytes an instruction;
      - the tile of A is stored **transposed** in shared memory, so the 8
        values of A a thread needs are contiguous and can be read as two
        `float4`, like the 8 values of B.

      Fewer instructions per FMA leave more issue slots for the FMAs.

      `warptile` adds a level between block and thread.  Each warp owns a
      32x64 part of the 128x128 block tile, and each thread 8x8 outputs
      spread over it, so that a warp's shared-memory reads touch few words
      and no bank twice.  (Bank conflicts are counted per request, and a
      wide access is split into several: a warp's 16-byte loads, `float4`,
      are served as four quarter-warps of 8 threads, 128 bytes each, and
      8-byte loads as two half-warps of 16.  Only threads of the same
      quarter- or half-warp can conflict: that is the unit to check.  32
      threads reading 32 consecutive `float4` take four passes and no
      conflict.)
      And the loads stop waiting:

      - `cp.async` copies the next slice of A and B from global to shared
        memory **without passing through registers**, while the warps
        multiply out of the current slice;
      - two slices live in shared memory: one being filled, one in use
        (double buffering).

      Then the loop is trimmed: an SM issues one instruction a cycle per
      scheduler, so every address computed or bound checked in the loop
      takes the place of an FMA.  On sizes that are whole tiles the rung
      drops the checks, moves its pointers on by one addition a slice, and
      handles two slices a trip so that every shared-memory address is a
      constant: 91% of the loop's instructions are FMAs instead of 84%,
      and on an H100 at 4096 it went from 0.87x of cuBLAS to 0.99x.

      A deeper ring (three or four slices, A kept row-major) is one of the
      shapes `bench/mmtune` measures; on an H100 at 4096 it was slower
      (0.75x of cuBLAS), so the rung runs the two-slice kernel.  At 1024 it
      takes 64x64 tiles of four warps, for the reason of the previous step.
      Block tile in shared memory, warp tile, thread tile
      in registers, a copy pipeline: the structure of library kernels.  Its shape (tile
      sizes, stages, warps) is one of forty that `bench/mmtune` measures
      side by side; `bench/KERNELS.md` has the method.

      **Compare `blocktile_2d`, `vectorized`, `warptile` and `cuBLAS`.**
      Read the x lib column: the last FP32 rung against cuBLAS's own FP32
      kernel.
    ]],

    step "Where each rung sits on the roofline" [[
      A block that computes a BM x BN tile of C loads `BM + BN` values of
      A and B for each step of k and does `2*BM*BN` FLOPs with them.  Per
      byte loaded from global memory that is `2*BM*BN / (s*(BM + BN))`
      for values of s bytes (4 in FP32 and TF32, 2 in BF16):

      | rungs | tile of C | FLOP/byte |
      |---|---|---|
      | `naive`, `coalesced` | 1 output | 0.25 |
      | `smem_tiled` | 32x32 | 8 |
      | `blocktile_1d` | 64x64 | 16 |
      | rungs 5 to 8 | 128x128 | 32 |
      | `wmma_bf16` | 128x128 | 64 |
      | `wmma_async` | 128x128 | 64 |
      | `wgmma` | 128x256 | 85 |

      Put those beside your ridge (16 FLOP/byte for the FP32 peak of an
      H200):

      - below the ridge, a rung waits on memory, whatever its arithmetic;
      - at 32 FLOP/byte the FP32 rungs are clear of it, and what remains
        is the cost of *instructions*: loads, address arithmetic and
        barriers issued beside the FMAs.  Those rungs win by issuing
        fewer non-FMA instructions.
      - the tensor cores move the ridge: at 990 TFLOP/s (BF16) over 3.35
        TB/s an H100's ridge is near 300 FLOP/byte, so the same tiles sit
        left of it, and the traffic between L2 and the multiprocessors
        starts to count.  Bigger tiles and 2-byte values are how
        tensor-core kernels climb back.

      This is a rough model: the L2 cache serves part of the traffic at
      more than DRAM speed, so rungs left of the ridge do better than it
      predicts.  The **%peak** column is the share of the FP32 peak; the
      tensor-core rows leave it blank, since their peak is another one.
    ]],

    step "Tensor cores: a matrix multiply per instruction" [[
      An FMA instruction does 32 multiply-adds: one per thread of a warp.
      A **tensor core** instruction does a whole small matrix product for
      the warp: `D = A x B + C` on tiles held across the warp's
      registers.  In BF16 one instruction (`mma.sync.m16n8k16`) multiplies
      a 16x16 tile by a 16x8 one, 2048 multiply-adds; in TF32 (`m16n8k8`),
      1024.  An H100 SXM is rated at about 67 TFLOP/s in FP32 on its CUDA
      cores, and at about 495 in TF32 and 990 in BF16 on its tensor cores
      (dense).

      **WMMA** (`nvcuda::wmma`, `#include <mma.h>`) is the portable C++
      way to them.  A warp declares **fragments**, opaque pieces of a
      16x16 tile spread over its 32 threads, and calls, all 32 threads
      together:

      ```
      namespace w = nvcuda::wmma;
      w::fragment<w::matrix_a, 16, 16, 16,
                  __nv_bfloat16, w::row_major> a;
      w::fragment<w::matrix_b, 16, 16, 16,
                  __nv_bfloat16, w::row_major> b;
      w::fragment<w::accumulator, 16, 16, 16,
                  float> c;
      w::fill_fragment(c, 0.0f);
      w::load_matrix_sync(a, As + r * lda + k, lda);
      w::load_matrix_sync(b, Bs + k * ldb + n, ldb);
      w::mma_sync(c, a, b, c);      // c += a x b
      w::store_matrix_sync(C + r * N + n, c, N,
                           w::mem_row_major);
      ```

      The tiles come from shared memory (`As`, `Bs`), a 16x16 piece of
      each a call; `c` stays in registers until it is stored.

      `wmma_tf32` is rung 6's structure with the inner loop replaced:
      each of 8 warps owns 64x32 of a 128x128 block tile, 4 x 2
      accumulator fragments, and multiplies 16x16x8 tiles out of shared
      memory.  `wmma_bf16` is the same with BF16 inputs and 16x16x16
      tiles.  Both need compute capability 8.0 (Ampere) or newer: on
      older GPUs their rows say *unavailable*.

      **Compare `warptile`, `wmma_tf32` and `wmma_bf16`,** and each with
      the cuBLAS row of its precision (`cuBLAS TF32`, `cuBLAS BF16`; in
      `cudalab run` they are `cublas_tf32` and `cublas_bf16`, and come
      with the variants of their precision): their **x lib** compares
      with that row, not with FP32 cuBLAS.

      Here the ladder stops climbing for a rung.  On an H100 at 4096
      `wmma_tf32` took 2.98 ms, slower than `warptile` on the CUDA cores
      (2.67 ms), while `cuBLAS TF32` did the same product in 0.34 ms: the
      tensor cores are not what limits this rung.  Feeding them is.  Each
      16x16x8 multiply needs two fragments loaded from shared memory into
      registers, 4 bytes a value, and nothing overlaps the copy of the
      next slice with the multiplies of this one, so the warps spend their
      time loading and waiting.  `wmma_bf16` has the same structure with
      values half the size and twice the k per instruction, and took 0.91
      ms: 3.3 times faster for half the bytes per multiply-add.  From here
      on, read each rung against the library of its own precision (the x
      lib column): 0.12x for `wmma_tf32`, 0.22x for `wmma_bf16`, and the
      next two rungs climb from there.
    ]],

    step "TF32 and BF16: what the precision costs, and who picks it" [[
      Tensor cores are fast partly because their inputs are narrow.  The
      three formats of this lab all keep FP32's 8 exponent bits, so they
      reach the same range (about 1e-38 to 3e38); they differ in the
      fraction:

      | format | bytes | fraction | step |
      |---|---|---|---|
      | FP32 | 4 | 23 bits | 1.2e-7 |
      | TF32 | 4 | 10 bits | 9.8e-4 |
      | BF16 | 2 | 7 bits | 7.8e-3 |

      The step is the gap between 1 and the next number.  TF32 is not a
      storage format: it is FP32 data with 13 fraction bits dropped on the
      way into the tensor cores.  BF16 is stored in 2 bytes, which halves
      what a kernel loads.

      The products are summed in FP32 in every row here, so what the
      narrow formats cost is the rounding of the inputs.  For inputs of
      random sign the rounding errors do not pile up along k: a whole
      output ends up off by about the same fraction as one product.  The
      table's check column shows each row's measured error against the
      double-precision product of the FP32 inputs: around 1e-6 for FP32
      (the rounding of the sums), 3e-4 for TF32, 2e-3 for BF16.  TF32 and
      BF16 rows are checked with tolerances about ten times their cost,
      5e-3 and 3e-2; FP32 rows with 1e-4.

      FP16 has 10 fraction bits like TF32 but only 5 exponent bits: its
      largest value is 65504, its smallest normal number 2^-14 (about
      6.1e-5), and below that it has only subnormals, with fewer bits the
      smaller they get, down to 2^-24 (about 6e-8); smaller values become
      zero.  The small end is what bites in training: many gradients are
      tiny, and in FP16 they lose their precision below 6e-5 and vanish
      below 6e-8.  **Loss scaling** exists for that: multiply the loss,
      and so every gradient, by a large factor (say 2^16) before the
      backward pass and divide the gradients by it before the weights
      are updated, so that small gradients land in FP16's normal range.  Overflow is the side
      effect to watch, not the reason: a dynamic scaler halves the factor
      when a gradient comes out as infinity and skips that step.  BF16
      keeps FP32's 8 exponent bits, so gradients as small as 1e-38 stay
      representable, and training in BF16 usually needs no loss scaling.
      BF16's price is precision (2 to 3 significant digits): fine for the
      weights and activations of a network, not for every computation.

      Where do the BF16 inputs come from?  The problem's A and B are FP32;
      the BF16 rows get copies rounded on the device *before* timing
      (`cuBLAS BF16` reads the same copies), as a network keeps its
      weights in BF16.  TF32 rows read the FP32 data and round as they
      load it.

      And which unit runs a matrix product is a setting, not a given:

      - **cuBLAS.** `cublasSgemm` on FP32 data uses the CUDA cores in the
        default math mode, as the `cuBLAS` row here does;
        `cublasSetMathMode(handle, CUBLAS_TF32_TENSOR_OP_MATH)` lets it
        use TF32 tensor cores, and `cublasGemmEx` with compute type
        `CUBLAS_COMPUTE_32F_FAST_TF32` asks for them (the `cuBLAS TF32`
        row).  FP16 and BF16 data (`cuBLAS BF16`) go to the tensor cores
        wherever the GPU has them.
      - **PyTorch.** Matrix products of FP32 tensors use TF32 only when
        allowed: `torch.backends.cuda.matmul.allow_tf32 = True`, or
        `torch.set_float32_matmul_precision("high")`.  It was on by
        default in PyTorch 1.7 to 1.11 and has been off since 1.12;
        convolutions (`torch.backends.cudnn.allow_tf32`) still default to
        on.  `torch.autocast(device_type="cuda", dtype=torch.bfloat16)`
        runs products in BF16.
      - **TensorFlow** uses TF32 by default on Ampere and newer
        (`tf.config.experimental.enable_tensor_float_32_execution`).

      So the same model can run several times faster, and a little less
      precisely, on a new GPU with no change to its code.  When results
      differ from one machine to another at the fourth digit, check which
      precision the products ran in.
    ]],

    step "Feeding the tensor cores: alignment, tiles, cp.async" [[
      With the multiply 7 to 15 times faster, everything around it shows:

      - **Alignment.** 16-byte copies need rows that start on 16-byte
        boundaries: K and N multiples of 4 (FP32) or 8 (BF16).  Fragment
        loads want 32-byte-aligned addresses and row strides of whole
        16-byte words.  Sizes that are not whole multiples work here
        (every rung takes any M, N, K) but fall back to element-by-element
        loads.  Libraries and frameworks pad dimensions to multiples of 8
        or 16 for this reason.
      - **Tile shapes.** A tensor-core tile is 16 wide: a dimension of 1000
        leaves partial fragments at the edge, done in full and thrown
        away.  Shared-memory rows are padded by 16 bytes so that the
        fragment loads spread over the banks.
      - **Feeding.** `wmma_async` copies the next slices of A and B with
        `cp.async` into a ring of three stages, so the tensor cores do not
        wait for each slice: 128x128 block tiles of 4 warps, each warp
        64x64 (16 accumulator fragments), 32 values of k a slice.  Bigger
        128x256 tiles bring more multiply-adds per byte, but on an H100 at
        4096 they were slower (0.29x of cuBLAS BF16 against 0.32x).

      **Compare `wmma_bf16`, `wmma_async` and `cuBLAS BF16`.**  On Hopper
      the gap that remains is WMMA itself: cuBLAS there uses **wgmma**, a
      warp-*group* instruction that reads B from shared memory, through a
      descriptor, and A either from shared memory the same way or from
      registers; it runs asynchronously, fed by the TMA copy engine.
      WMMA cannot emit it; it compiles to `mma.sync`, the Ampere-style
      instruction, which does not reach Hopper's full tensor-core rate.
      On an A100, where `mma.sync` is the fastest path, the same rung can
      come much closer to cuBLAS.  The next rung takes Hopper's path.
    ]],

    step "Hopper's own path: wgmma fed by TMA" [[
      `wgmma` (Hopper only, compute capability 9.0) keeps the BF16
      inputs and the FP32 sums and changes how the tensor cores are fed:

      - **A warpgroup multiplies.**  `wgmma.mma_async` is issued by a
        *warpgroup*, four warps (128 threads) together.  One instruction
        here multiplies a 64x16 piece of A by a 16x256 piece of B, 262144
        multiply-adds: 128 times one `mma.sync`.  The accumulators stay in
        registers, 128 floats a thread.
      - **Operands from shared memory.**  B must be in shared memory,
        described by a 64-bit **matrix descriptor** (where the tile
        starts, how its rows are laid out, which swizzle); A may come
        the same way or from registers.  This rung takes both from shared
        memory: the instruction gets two descriptors and reads the tiles
        itself.  No fragment loads, no registers spent on them.
      - **Asynchronous.**  The threads issue the multiplies and go on;
        `wgmma.commit_group` closes a group and `wgmma.wait_group n`
        waits until at most n groups are in flight.  The rung issues the
        four multiplies of a 64-deep slice, then waits only for the
        *previous* slice, so the tensor cores always have work queued.
      - **TMA copies.**  The Tensor Memory Accelerator moves a whole tile
        from global to shared memory on *one* thread's request
        (`cp.async.bulk.tensor`, with a tensor map made on the host by
        `cuTensorMapEncodeTiled`).  It writes the tile **swizzled** (the
        16-byte pieces of each 128-byte row permuted by row), the layout
        wgmma reads without bank conflicts, and fills what lies past the
        matrix edge with zeros.  Completion is counted on an **mbarrier**
        in shared memory: the consumer waits until the expected bytes have
        arrived.
      - **Producer and consumers.**  A block of 384 threads owns a
        128x256 tile of C.  Warpgroup 0 is the producer: one of its
        threads keeps a ring of 4 slices (48 KB each) filled.  Warpgroups
        1 and 2 each multiply 64 rows of the tile.  Two mbarriers a slice
        carry the hand-off: *full* (the bytes are in) and *empty* (both
        consumers are done with it).  `setmaxnreg` moves registers from
        the producer, which needs few, to the consumers.
      - **B as it is.**  B is K x N with N contiguous; wgmma's transpose
        flag for B reads such "MN-major" tiles, so nothing is transposed.

      Why WMMA stays behind on an H100: `mma.sync` is a warp instruction
      that takes its operands from registers, so every multiply costs
      shared-memory loads into fragments and waits for them; the issue
      slots and registers that costs cap it far below the tensor cores'
      rate.  wgmma is the only instruction that reaches Hopper's full
      rate, and cuBLAS uses it.  Measured on an H100 at 4096 x 4096 x
      4096, side by side: `wgmma` 0.213 ms (646 TFLOP/s) against cuBLAS
      BF16's 0.179 ms (768 TFLOP/s), 0.84x; `wmma_async` 0.574 ms,
      0.31x.  At 1024, where 128x256 tiles would leave most
      multiprocessors idle, the rung takes 128x128 tiles (0.80x).

      The price is portability: the code is compiled for `sm_90a`, an
      architecture-*specific* target, and runs on 9.0 alone (not on
      Ampere, not on Blackwell).  Elsewhere the row says *unavailable*.
      TMA also needs 16-byte-aligned rows (K and N multiples of 8): other
      sizes run through `wmma_async`'s kernel.

      **Compare `wmma_async`, `wgmma` and `cuBLAS BF16` at 4096.**
    ]],

    step "The last few percent: persistent blocks, clusters, TMA stores" [[
      `wgmma` runs its multiplies at cuBLAS's speed; what it loses is
      around them.  Three rungs take it back, one idea each, and the
      last one ends level with cuBLAS.  One run on an H100, side by
      side (`bench/results`), as a fraction of cuBLAS BF16's time at
      4096 x 4096 x 4096: `wgmma` 0.87x, `wgmma_persist` 0.97x,
      `wgmma_cluster` 0.97x, `wgmma_tmastore` 1.003x (and 1.003x and
      1.004x in two more runs).  At 2048 `wgmma_tmastore` gives 0.999x,
      at 8192 1.001x; on an H200 1.007x, 0.991x to 1.004x and 0.988x.
      At 8192 single ratios mean little: cuBLAS's own
      time there wanders by several percent from run to run as the
      card's clock follows its power draw.

      - **Persistent blocks** (`wgmma_persist`).  Rung 11 starts one
        block per 128x256 tile: 512 blocks at 4096, about four waves on
        132 multiprocessors.  Each block pays for its start, for filling
        its ring of slices, and for an epilogue during which the tensor
        cores of its multiprocessor have nothing to do.  Here the grid
        is one block per multiprocessor and each block walks a list of
        tiles (block b takes tiles b, b + 132, b + 264, ...).  The
        producer does not stop at a tile's end: while the consumers
        write out one tile, the next tile's first slices are already
        arriving.  The list is ordered so that the tiles in flight at
        one time share a few rows of A and columns of B, which then
        come from L2: DRAM reads fell from 171 to 149 MB.
      - **Clusters and TMA multicast** (`wgmma_cluster`).  A thread
        block cluster is a group of blocks that run at the same time on
        nearby multiprocessors and can reach each other's shared memory.
        Two blocks one above the other need the same slices of B, so each
        loads half of them, and the copy engine writes each half into
        *both* blocks' shared memory at once.  A stage may be refilled
        only when the consumers of both blocks are done with it, so each
        consumer warp signals the "empty" barrier in both.  L2 traffic
        fell from 1.51 to 1.40 GB, but the time did not move: on an H100
        at these sizes L2 was not what held the kernel back.  cuBLAS's
        own kernel here is organised this way (256x128 tiles, two
        consumer warpgroups, clusters of two, one block per
        multiprocessor).  The last rung does *not* keep the clusters;
        why is below.
      - **Results out by TMA** (`wgmma_tmastore`, built on
        `wgmma_persist`).  Timing `wgmma_persist`
        at K = 1024, 2048, 4096 and 8192 (4096 x 4096 outputs) shows a
        cost of about 21 us that does not grow with K; cuBLAS's is about
        15 us.  That is the epilogue: the consumers store 128 KB of FP32
        sums per tile themselves and start no multiply until the last
        store has left.  Here they write each 64 x 32 piece into one of
        two small buffers in shared memory (swizzled, so that their
        writes meet no bank conflicts) and one thread hands it to the
        copy engine with a TMA store; the consumers go on to the next
        tile while the copy engine writes C.

      With the clock held at one speed under Nsight Compute (1.36 GHz),
      `wgmma_tmastore` took 299,000 cycles at 4096 and cuBLAS 296,500:
      the same work, within 1%.  What was left at full clock was power:
      at the same clock the cuBLAS kernel issued 17.6 million
      instructions and this rung 31.7 million, and an H100 running
      tensor cores flat out slows its clock to stay inside its power
      limit.  Nsight Compute's per-instruction counts showed where they
      went: each slice of K spent about 100 instructions of address
      arithmetic (the descriptors rebuilt from the slice number, the
      1024-byte alignment of the ring recomputed, the barriers' addresses
      found again) around its four multiplies.  The consumers' loop now
      builds each descriptor once and moves it by one addition per step
      (a stage or 16 more of K only shifts its start address), keeps the
      ring's stage and parity in two counters, and runs as one copy per
      consumer so that everything derived from the consumer's number is
      known to the compiler to be the same across the warp.  The rung
      dropped to 26.0 million instructions and rose to 0.996x of cuBLAS
      at 4096 in two runs (8192: 1.04x and 1.07x; 2048, 128 tiles in one
      wave with nothing to hide a start or an epilogue behind: 0.94x).

      One copy per consumer was not enough.  The SASS still moved each
      descriptor from a thread's registers to the warp's *uniform*
      registers (R2UR) before every multiply.  A wgmma reads its
      descriptors from uniform registers, and the compiler builds a value
      there only where it can prove the warp has not split.  Each copy
      ran under `if (wg == 1)` with `wg = threadIdx.x / 128`, which to
      the compiler may differ between the threads of a warp.  Taking it
      as `__shfl_sync(~0u, threadIdx.x / 128, 0)` (lane 0's value, the
      same in every lane) removed the moves: 22.4 million instructions.

      With the loop that lean, the clusters stopped paying.  At 4096 with
      the clock held, the same rung ran in 298,400 cycles alone and
      300,900 in clusters; cuBLAS took 299,300.  The pair pays for:

      - each warp's arrival on the other block's barrier;
      - running in step (a stage is free only when both blocks are done
        with it);
      - in one wave (2048: 128 tiles, one per multiprocessor), starting
        together: 0.95x in clusters against 1.00x alone.

      So `wgmma_tmastore` runs its blocks alone.  With the clock held it
      now needs 0.2% fewer cycles than cuBLAS at 4096 (296,900 against
      297,700), its tensor pipe busy 91.1% of the time against 90.9%.

      Several ideas measured here did not pay.  Writing a block's last
      tile out all at once through the then idle ring, instead of the
      two 8 KB buffers, made 2048 and 4096 slower (0.92x and 0.99x); it
      makes the two consumers meet before either writes, and was dropped
      there.  A "ping-pong" schedule, the
      two consumers taking turns on 64x256 tiles so that one writes out
      while the other multiplies, ran at 0.72x: one warpgroup alone did
      not keep the tensor cores busy.  And waiting on a barrier with a
      suspend hint (the thread sleeps until the barrier completes)
      instead of polling it made no difference to the instruction count.
      Other tile orders (groups of 8 or 32 tile rows instead of 16) ran
      about 1% slower.  128x128 tiles ran at 0.89x.  Each warp storing its
      own 16 rows, with no barrier across the warpgroup, did not save
      time (301,200 cycles against 300,100).

      What is left is the same for cuBLAS.  512 tiles on 132
      multiprocessors make 3.88 waves, so 16 multiprocessors sit out the
      last one: about 3% of the run.

      Which of these could you write?  Rung 11's design (wgmma, TMA, a
      ring of mbarriers, a producer and consumers) fits in one file and
      is the path the tensor-core exercise's stretch milestone has in
      mind; on Hopper it reaches 0.86x and the stretch asks for 0.5x.
      Persistence is a loop around it, and the warpgroup index taken
      from lane 0 is one line.  Clusters and TMA stores are for reading:
      `kernels/matmul_wgmma_persist.cu` and `kernels/hopper.cuh`.

      **Compare `wgmma`, `wgmma_persist`, `wgmma_cluster`,
      `wgmma_tmastore` and `cuBLAS BF16` at 4096.**
    ]],


    step "Your turn" [[
      Your kernel is `starter.cu` and its launcher `starter.lua`, copied
      into your workspace when you opened the lab.  The starter computes
      one output per thread with `threadIdx.x` on the columns, like the
      `coalesced` rung, in 16x16 blocks.

      **Milestone:** correct results **within 2x of cuBLAS** (0.5x or
      more in the x lib column of `your kernel`) at the largest size you
      have measured; measure at 4096.  On an H200 `vectorized` measured
      0.66x: tiles alone will not reach the line, register blocking and
      wide loads will.
      Two more milestones are quizzes, on shared memory and on number
      formats: select one in the Milestones pane and press `Enter`.

      A second exercise, **Tensor cores: a BF16 kernel with WMMA**, starts
      from `wmma_starter.cu`: one warp per 16x16 tile of C, on the tensor
      cores, correct and slow.  Press `x` to pick it (or run `cudalab run
      matmul --exercise=wmma`); `e`, `r` and `s` then act on it.  Its A
      and B arrive in BF16, its rows stand beside cuBLAS BF16 and the lab's
      tensor-core rungs, and it also runs at 1000x999x1001, so the edges
      count.  **Milestone:** within 2x of the lab's own WMMA rung
      (`tc_wmma`, a 128x128 tile a block, measured beside your kernel on
      the same inputs) at 4096: a tiled WMMA kernel reaches it on every GPU
      with tensor cores.  The **stretch** milestone (no points) is within
      2x of cuBLAS BF16: on Ampere and Ada a well-fed WMMA kernel can get
      there, but on Hopper WMMA stops near a third of cuBLAS (the
      `tc_async` row), and that line takes `wgmma`, which your kernel may
      use there through inline PTX.

      | key | what it does |
      |---|---|
      | `e` | edit your kernel in `$VISUAL` or `$EDITOR` |
      | save | compiles and runs your kernel |
      | `r` / `R` | run the selected row / every row |
      | `s` / `S` | next / previous size |
      | `Enter` | a row's figures, and why it failed |
      | `X` | reset to the starter (yours is backed up) |
      | `x` | the next exercise (this lab has two) |

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
      id = "warptile", title = "Warp tiling, cp.async pipeline",
      kernel = "sgemm_warptile",
      why = "Adds a per-warp tile between block and thread, and copies the next slice into "
         .. "shared memory with cp.async while computing on the current one.",
    },
    variant {
      id = "wmma_tf32", title = "Tensor cores, TF32 (WMMA)",
      kernel = "gemm_wmma_tf32",
      why = "Each warp multiplies 16x16x8 tiles with one instruction on the tensor cores, the "
         .. "inputs rounded to TF32: many times the FP32 rate for a 3e-4 error.",
    },
    variant {
      id = "wmma_bf16", title = "Tensor cores, BF16 (WMMA)",
      kernel = "gemm_wmma_bf16",
      why = "BF16 inputs: twice TF32's rate on the tensor cores and half the bytes to load, "
         .. "for a 2e-3 error.",
    },
    variant {
      id = "wmma_async", title = "Tensor cores, cp.async pipeline",
      kernel = "gemm_wmma_async",
      why = "The tensor cores stop waiting for data: cp.async copies slices into a ring of "
         .. "three stages, each warp a 64x64 tile.",
    },
    variant {
      id = "wgmma", title = "Hopper: wgmma fed by TMA",
      kernel = "gemm_wgmma",
      why = "Hopper only: warpgroups multiply 64x256x16 tiles straight from shared memory, "
         .. "asynchronously, while one thread's TMA copies fill a 4-slice ring.",
    },
    variant {
      id = "wgmma_persist", title = "Hopper: persistent blocks",
      kernel = "gemm_wgmma_persist",
      why = "One block a multiprocessor walks its list of tiles: the ring runs on into the "
         .. "next tile, so no block start, ring fill or idle epilogue per tile.",
    },
    variant {
      id = "wgmma_cluster", title = "Hopper: clusters sharing B",
      kernel = "gemm_wgmma_cluster",
      why = "Two blocks one above the other in a cluster: each loads half of B and TMA "
         .. "multicast writes it into both, a third less traffic from L2.",
    },
    variant {
      id = "wgmma_tmastore", title = "Hopper: results out by TMA",
      kernel = "gemm_wgmma_tmastore",
      why = "The persistent blocks, alone (clusters cost more than they saved): results go "
         .. "through shared memory to the copy engine, which writes C while the consumers "
         .. "start the next tile.",
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

  exercises = {
    exercise {
      id = "wmma", title = "Tensor cores: a BF16 kernel with WMMA",
      problem = "gemm_bf16", library = "cublas_bf16",
      sizes = { "1000x999x1001", "4096x4096x4096" },
      kernel = "wmma_starter.cu", launcher = "wmma_starter.lua",
      variants = {
        variant {
          id = "tc_wmma", title = "The lab's WMMA rung", kernel = "gemm_wmma_bf16",
          why = "A 128x128 tile a block, each warp 64x32 of it in 16x16 fragments.",
        },
        variant {
          id = "tc_async", title = "The lab's cp.async rung", kernel = "gemm_wmma_async",
          why = "The same fragments fed by a three-stage cp.async ring of shared-memory tiles.",
        },
        variant {
          id = "tc_wgmma", title = "The lab's Hopper rung", kernel = "gemm_wgmma",
          why = "wgmma fed by TMA copies: what Hopper's tensor cores do beyond WMMA (sm_90 only).",
        },
      },
      hints = {
        [[The starter is correct and slow: each block is one warp with
          one 16x16 fragment of C, so every value of A and B is loaded
          from global memory once per 16 outputs that use it, and a
          multiprocessor holds too few warps to keep its tensor cores
          busy.  The FP32 ladder's first lesson applies again: more
          outputs per block, each input loaded once per block.]],
        [[Give a block 4 to 8 warps and a 64x64 or 128x128 tile of C,
          each warp a 32x32 or 64x32 piece of it: 2x2 or 4x2 fragments
          of `wmma::accumulator`.  Stage a slice of A (BM x 32) and of
          B (32 x BN) in shared memory per step of k, loaded by all the
          block's threads, then let each warp load its fragments from
          there.  The launcher changes with the tile: more threads a
          block, fewer blocks.]],
        [[Pad the shared-memory rows (for example 32 + 8 BF16 values a
          row of A) so that the rows a fragment load reads do not fall
          on the same banks; `load_matrix_sync` needs the stride to be a
          multiple of 8 BF16 values and the address 32-byte aligned.
          Copy global memory 16 bytes at a time (8 BF16 values) where
          K and N allow it, and fall back to single values at the edges:
          this exercise also runs at 1000x999x1001.]],
        [[Overlap the copy of the next slice with the multiply of this
          one: `cp.async` (from <cuda_pipeline.h>, or `__pipeline_memcpy_async`)
          writes shared memory without passing through registers, and a
          ring of 2 or 3 slices keeps the tensor cores fed.  The row
          `tc_async` is this design; compare yours with it at 4096.]],
        [[On a Hopper GPU (H100, H200) WMMA compiles to the older
          `mma.sync` instructions and stays well short of cuBLAS, which
          uses `wgmma` fed by the tensor memory accelerator.  cudalab
          compiles your kernel for `sm_90a` there, so inline PTX with
          `wgmma.mma_async` is open to you; on Ampere and Ada a good
          WMMA kernel can reach the stretch milestone on its own.]],
      },
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
    quiz {
      id = "tile_reuse",
      question = "In smem_tiled a 32x32 block computes a 32x32 tile of C, taking K in slices "
              .. "of 32. Per FMA, how many floats come from global memory and how many from "
              .. "shared memory?",
      choices = {
        { text = "2 global and 0 shared, as in the naive kernel.",
          feedback = "That is the naive kernel: one value of A and one of B loaded from global "
                  .. "memory per FMA. Tiling is what changes it: each loaded value is read 32 "
                  .. "times from shared memory." },
        { text = "1/16 global (2048 floats per 32,768 FMAs a slice) and 2 shared, so the "
              .. "limit moves to the shared-memory loads.",
          correct = true,
          feedback = "Right. A slice loads 32 * 32 values of A and of B, 2048 floats, for 32 "
                  .. "* 32 * 32 = 32,768 FMAs. But each FMA still reads two floats from shared "
                  .. "memory; 8x8 register patches cut that to 16 reads per 64 FMAs." },
        { text = "1/32 global and 1/32 shared: each value is loaded once and used 32 times.",
          feedback = "The global side is 2048 / 32,768 = 1/16 (two tiles a slice). And the "
                  .. "inner loop reads As[ty][k] and Bs[k][tx] for every FMA: 2 shared reads, "
                  .. "which is why the tiled rung gains less than you might expect." },
      },
    },
    quiz {
      id = "quarter_warp",
      question = "Each thread of a warp reads one float4 (16 bytes) from shared memory: "
              .. "thread t reads element t of a float4 array, 512 contiguous bytes. Threads 0, "
              .. "8, 16 and 24 all start in bank 0. Is this a bank conflict?",
      choices = {
        { text = "Yes, 4-way: four threads on bank 0, so four turns.",
          feedback = "A 16-byte access is served a quarter-warp at a time, 8 threads and 128 "
                  .. "bytes a pass, and conflicts count within a pass. Threads 0, 8, 16 and 24 "
                  .. "are in different passes: 4 passes, the least 512 bytes can take." },
        { text = "No: it takes 4 passes of 8 threads, each covering the 32 banks once, the "
              .. "minimum for 512 bytes.",
          correct = true,
          feedback = "Right. Threads 0-7 read bytes 0-127, all 32 banks once; then 8-15, and "
                  .. "so on. Only threads of the same quarter-warp can conflict; for 8-byte "
                  .. "loads the unit is the half-warp." },
        { text = "Yes, 32-way: every thread reads four banks, so all of them collide.",
          feedback = "Each thread needs four consecutive banks, and the 8 threads of a "
                  .. "quarter-warp need 32 different ones between them. No bank is asked for "
                  .. "two different words within a pass." },
      },
    },
    quiz {
      id = "formats",
      question = "You store tensors of 2 bytes a value. They hold gradients as small as 2e-9 "
              .. "and activations as large as 7e4. Which format keeps both without loss "
              .. "scaling?",
      choices = {
        { text = "FP16: it has 10 fraction bits, more precision than BF16.",
          feedback = "Precision is not the problem here; range is. FP16 ends at 65504, so 7e4 "
                  .. "becomes infinity, and its smallest subnormal is about 6e-8, so 2e-9 "
                  .. "becomes zero." },
        { text = "BF16: its 8 exponent bits give FP32's range, about 1e-38 to 3e38, at 2 to "
              .. "3 significant digits.",
          correct = true,
          feedback = "Right. Both values are far inside BF16's range; each keeps 2 to 3 "
                  .. "digits. That is why BF16 training usually needs no loss scaling, and "
                  .. "FP16 training does." },
        { text = "TF32: FP32's range with 10 fraction bits, the best of both.",
          feedback = "TF32 is not a storage format. It is FP32 data, 4 bytes a value, with "
                  .. "13 fraction bits dropped as it enters the tensor cores; it cannot halve "
                  .. "what you store." },
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
      id = "tensor_wmma", exercise = "wmma", size = "4096x4096x4096", points = 2,
      text = "Your tensor-core kernel within 2x of the lab's WMMA rung (tc_wmma) on the same "
          .. "BF16 inputs",
      check = checks.speedup_over("tc_wmma", 0.5),
    },
    milestone {
      id = "tensor_cublas", exercise = "wmma", size = "4096x4096x4096", points = 0,
      text = "Stretch: within 2x of cuBLAS in BF16 (on Hopper this takes wgmma, not WMMA)",
      check = checks.at_least("speedup_lib", 0.5, "x"),
    },
    milestone {
      id = "shared",
      text = "Understand when to use shared memory",
      quiz = "shared_memory",
    },
    milestone {
      id = "formats",
      text = "Can choose between FP16, BF16 and TF32",
      quiz = "formats",
    },
  },
}
