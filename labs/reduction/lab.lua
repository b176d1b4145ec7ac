-- Parallel reduction: summing hundreds of millions of floats, six kernels
-- from a divergent tree to a bandwidth-bound grid-stride loop, against CUB.
return lab {
  id = "reduction",
  title = "Parallel reduction",
  summary = "Sum 2^28 floats: from a divergent tree in shared memory to warp shuffles and 16-byte loads, against CUB and the CPU.",
  order = 1,
  problem = "reduce_sum",
  library = "cub",
  sizes = { "2^20", "2^24", "2^28" },
  time_limit = 120,

  steps = {
    step "Why a sum is hard on a GPU" [[
      On a CPU a sum is one loop and one accumulator: each addition waits for
      the one before it.  A GPU runs tens of thousands of threads at once, so
      that chain has to become a **tree**: pairs are added in parallel, then
      pairs of pairs, until one value is left.  A tree over n values has only
      log2(n) levels, but two things make it awkward on real hardware.

      - **Threads cannot wait for each other across the whole GPU.**  Threads
        of one block can meet at `__syncthreads()` and share data through
        shared memory; blocks cannot.  So each block reduces its own slice to
        one partial sum, and a second pass (or an atomic add) combines the
        partials.
      - **Almost no arithmetic per byte.**  Each float is read once and used in
        one addition: 4 bytes for 1 FLOP.  The kernel is limited by memory
        bandwidth, never by the ALUs.  A perfect reduction reads the input at
        the speed of a device-to-device copy, and that is the yardstick the
        table uses for "% of peak".

      The rungs below keep the same tree and change *how* threads walk it.
      Each step removes one cause of wasted time.
    ]],

    step "The first kernel: interleaved addressing" [[
      The naive kernel gives each thread one element.  A block copies its
      slice into shared memory, then loops with a stride `s` of 1, 2, 4, ...:
      in each round, thread `t` adds element `t + s` into element `t` **if `t`
      is a multiple of 2s**, and the block synchronises.

      ```
      for (s = 1; s < blockDim.x; s *= 2) {
          if (tid % (2 * s) == 0)
              sdata[tid] += sdata[tid + s];
          __syncthreads();
      }
      ```

      The result is right, but look at which threads work.  In the first
      round only even threads add; in the next, every fourth.  A **warp** (32
      threads issued together) whose threads disagree on the `if` runs both
      paths one after the other, with the idle threads masked off.  This is
      **warp divergence**: every warp stays busy while doing a fraction of
      useful work, and `%` is a slow instruction besides.
    ]],

    step "Reading the table" [[
      Run the lab and read one row per kernel and size.

      - **time** is the median of many timed repetitions (CUDA events around
        each one, after a warm-up), with its spread.  The spread tells you
        whether two rows really differ.
      - **GB/s** is bytes read divided by time.  For a sum that is 4 bytes per
        element; the output is one float.
      - **% of peak** compares GB/s with the copy bandwidth measured on this
        GPU.  A reduction only reads, so the best kernels land near 100% (a
        copy also writes, and can even be a little slower); CUB is the
        practical ceiling.
      - **vs CPU** is the speedup over a vectorised single-thread sum (the
        multi-thread baseline is shown too), and **vs CUB** compares with
        `cub::DeviceReduce::Sum`, the library you would use in practice.

      Watch the smallest size too: 2^20 floats are only 4 MiB, which fits in
      L2 and finishes in microseconds, so launch overhead and the second pass
      dominate.  Conclusions about bandwidth belong to the largest size.
    ]],

    step "Removing divergence, meeting bank conflicts" [[
      The second rung keeps the stride loop but changes who does the work:
      thread `t` handles index `2 * s * t`.  Now the active threads are the
      *first* ones of the block, packed together, so whole warps are either
      all busy or all idle and no warp diverges until fewer than 32 threads
      remain.

      The price moves to **shared memory**.  Shared memory is split into 32
      banks, 4 bytes wide; a warp's access is served in one go only when its
      32 threads hit 32 different banks (or the same word).  With index
      `2 * s * t`, neighbouring threads are `2s` words apart: at `s = 16` all
      32 threads land in the same bank and the access is replayed 32 times.
      That is a **bank conflict**, and it grows with every round.
    ]],

    step "Sequential addressing and the first add" [[
      The third rung turns the loop around: start with `s = blockDim.x / 2`
      and halve it, and let thread `t < s` add element `t + s` into `t`.
      Active threads are contiguous (no divergence) *and* a warp reads 32
      consecutive words (no bank conflicts).

      Still, half of the threads go idle after the very first round, and the
      first round is the only one that touches global memory.  The fourth
      rung, **first add during load**, lets each thread read two elements
      from global memory and add them before writing to shared memory.  The
      block covers twice the data, the grid needs half the blocks, and no
      thread idles through the first round.
    ]],

    step "Warp shuffles and many elements per thread" [[
      Once 32 or fewer values remain, they live in one warp, and a warp can
      exchange registers directly with `__shfl_down_sync(mask, v, offset)`: no
      shared memory, no `__syncthreads()`.  Older code unrolled this last warp
      with a `volatile` shared array and no barrier, assuming the 32 threads
      move in lockstep.  Since Volta, threads of a warp are scheduled
      independently and that assumption is false: use the `_sync` shuffle
      intrinsics, which name the threads taking part.

      The last rung attacks the real limit, memory traffic.  It launches only
      enough blocks to fill the GPU and lets each thread walk the array in a
      **grid-stride loop**, keeping a private sum in a register and loading
      `float4` values (16 bytes per instruction).  Fewer, wider loads keep
      more bytes in flight per thread, which is what a bandwidth-bound kernel
      needs.  The tree at the end now reduces a few thousand partials instead
      of millions of elements.
    ]],

    step "Your turn" [[
      Your copy of the exercise is `starter.cu` (the kernel) and
      `starter.lua` (the launcher that picks grids and runs the passes).  It
      starts as the interleaved kernel, correct and slow.  Make it beat the
      CPU by **100x** at the largest size.  The milestones below tick when your kernel's row is correct and
      fast enough.  Results are checked against a double-precision CPU sum,
      so a kernel that drops elements or races on its output fails even when
      it is fast.

      Things that usually matter, in order: enough bytes in flight (wide
      loads, several per thread), no divergence inside warps, warp shuffles
      for the last 32 values, and one partial per block combined by a second
      small pass or one atomic per block.
    ]],
  },

  variants = {
    variant {
      id = "interleaved", title = "Interleaved addressing",
      kernel = "reduce_interleaved_divergent",
      why = "One element per thread, tree in shared memory; the tid % (2s) test makes every warp diverge.",
    },
    variant {
      id = "strided", title = "Strided index",
      kernel = "reduce_interleaved_strided",
      why = "Packs the active threads together so warps stop diverging, but the 2*s*tid index causes shared-memory bank conflicts.",
    },
    variant {
      id = "sequential", title = "Sequential addressing",
      kernel = "reduce_sequential",
      why = "Halving stride with contiguous threads: no divergence and conflict-free shared memory, but half the threads idle from the first round.",
    },
    variant {
      id = "first_add", title = "First add during load",
      kernel = "reduce_first_add",
      why = "Each thread adds two global elements while loading, so no thread idles in the first round and the grid needs half the blocks.",
    },
    variant {
      id = "warp_shuffle", title = "Warp shuffle for the last 32",
      kernel = "reduce_warp_shuffle",
      why = "The last 32 values are summed in registers with __shfl_down_sync: no barriers, no shared memory, and no unsafe volatile tricks.",
    },
    variant {
      id = "vectorized", title = "Grid-stride loop with float4 loads",
      kernel = "reduce_vectorized",
      why = "A GPU-filling grid where each thread sums many elements through 16-byte loads, keeping enough bytes in flight to saturate memory.",
    },
  },

  exercise = exercise {
    kernel = "starter.cu",
    launcher = "starter.lua",
    hints = {
      [[Switch the tree to sequential addressing first: start with
        s = blockDim.x / 2, halve it each round, and let threads tid < s add
        partial[tid + s].  Same result, no divergence, no bank conflicts.]],
      [[Let each thread add two (or more) elements while it loads them from
        global memory.  The launcher then needs half as many blocks per pass:
        change the grid size in starter.lua to match.]],
      [[For the last 32 values use __shfl_down_sync(0xffffffff, v, offset)
        with offsets 16, 8, 4, 2, 1.  Do not rely on a warp running in
        lockstep without _sync intrinsics.]],
      [[The big win is memory traffic: launch a fixed number of blocks (a few
        per SM), loop over the input with a grid-stride loop summing into a
        register, load float4 values where the pointer is aligned, and handle
        the leftover elements at the end.]],
      [[One pass is enough if each block adds its partial sum into the output
        with atomicAdd; zero the output first in the launcher with
        args.output:fill(0).  The order of the additions changes, but the
        check allows for FP32 rounding.]],
    },
  },

  quizzes = {
    quiz {
      id = "divergence",
      question = "In the interleaved kernel, a warp runs `if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];` and only 8 of its 32 threads pass the test. What does the warp do?",
      choices = {
        { text = "It runs the addition once with 8 threads active and 24 masked off; the masked lanes still occupy the warp for that time.",
          correct = true,
          feedback = "Right. A warp issues one instruction for all its lanes. Lanes that fail the test are switched off for the branch but the warp spends the same time, so 3/4 of its work is wasted." },
        { text = "The 24 idle threads leave and join another warp that has work to do.",
          feedback = "Threads belong to a fixed warp for their whole life (consecutive thread ids, 32 at a time). The hardware cannot regroup them, which is why the layout of work across thread ids matters." },
        { text = "Nothing is lost: the 8 active threads run four times faster because they have the SM to themselves.",
          feedback = "Lanes do not speed up when others are masked. The warp still takes a full issue slot; the masked lanes simply produce nothing." },
        { text = "The kernel fails: threads of one warp must always take the same branch.",
          feedback = "Divergence is legal and the results are correct; it only costs time, because the warp runs each side of the branch in turn." },
      },
    },
  },

  milestones = {
    milestone {
      id = "cpu100x",
      text = "Parallel reduction achieving over 100x speedup vs the CPU",
      check = checks.at_least("speedup_cpu", 100, "x"),
    },
    milestone {
      id = "warps",
      text = "Can explain warp execution and divergence",
      quiz = "divergence",
    },
  },
}
