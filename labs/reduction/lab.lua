-- Parallel reduction: summing hundreds of millions of floats, six kernels
-- from a divergent tree to a bandwidth-bound single pass, against CUB.
return lab {
  id = "reduction",
  title = "Parallel reduction",
  summary = "Sum 2^28 floats: from a divergent tree in shared memory to warp shuffles and "
         .. "16-byte loads, against CUB and the CPU.",
  order = 3,
  problem = "reduce_sum",
  sizes = { "2^20", "2^24", "2^28" },
  time_limit = 120,

  steps = {
    step "Why a sum, and why it is hard on a GPU" [[
      A reduction folds many values into one.  It hides inside more code
      than it seems: a **sum** or a mean, a vector **norm** (the square
      root of a sum of squares), a dot product, the loss averaged over a
      batch, and the **softmax denominator** (the sum of the exponentials
      of a row).  When those are slow, whole models are slow.

      On a CPU a sum is one loop and one accumulator, and each addition
      waits for the previous one.  A GPU runs tens of thousands of threads
      at once, so the chain has to become a **tree**: add pairs, then pairs
      of pairs, until one value is left (log2 n rounds for n values).

      Two facts shape every kernel in this lab:

      - **Blocks cannot wait for each other.**  The threads of one block
        meet at `__syncthreads()` and share data in shared memory; blocks
        cannot.  So each block reduces its slice to one partial sum, and a
        second pass (or an atomic add) combines the partials.
      - **One addition per 4 bytes read.**  The arithmetic is free; the
        kernel is limited by memory bandwidth.  A perfect reduction reads
        its input as fast as the GPU can copy memory, and that copy
        bandwidth is the yardstick of the **%peak** column.

      The six rungs below keep the same tree and change *how* threads
      walk it.  Each one removes one cause of lost time, and each step
      tells you which two rows of the table to compare.
    ]],

    step "Running the rungs and reading the table" [[
      Press `s` until the size **2^28** is selected (1 GiB of floats),
      then `R`: every rung runs, with CUB and the CPU beside them.  `r`
      runs only the row under the cursor in the Run pane (`Tab` moves
      between panes), and `Enter` on a row shows all its figures.

      | column | what it says |
      |---|---|
      | median | time of one sum, with its spread |
      | rate | GB/s: input bytes read per second |
      | %peak | rate over the measured copy bandwidth |
      | x CPU | speedup over one CPU thread |
      | x lib | speedup over CUB: 0.5x is half its speed |

      - The **spread** tells you whether two rows really differ: a gap
        smaller than the spread is noise.
      - **%peak** divides by the copy bandwidth shown as `BW` in the
        Device pane.  A copy reads *and* writes each byte while a sum only
        reads, so the best rows can pass 100%.
      - The CPU rows use vector instructions; the multi-threaded one is
        there too, so you can see how much of the gap is parallelism.

      Try the smallest size once as well.  2^20 floats are 4 MiB: at copy
      speed that is about a microsecond of reading, no more than the fixed
      cost of launching a kernel, so that row measures launches and passes,
      not bandwidth.  Conclusions about memory belong to 2^28.
    ]],

    step "Rung 1 to 2: warp divergence" [[
      The first rung, `interleaved`, gives each thread one element.  A
      block copies its 256 elements into shared memory, then runs:

      ```
      for (s = 1; s < blockDim.x; s *= 2) {
          if (tid % (2 * s) == 0)
              sdata[tid] += sdata[tid + s];
          __syncthreads();
      }
      ```

      The sum is right, but look at which threads work.  Threads run in
      **warps** of 32 that issue one instruction together.  In round one
      only even threads add; in round two every fourth thread.  A warp
      whose threads disagree on the `if` is **divergent**: it runs the
      branch with the failing lanes masked off, so every warp stays busy
      while most of its lanes do nothing.  The `%` is a slow instruction
      besides.

      The second rung, `strided`, keeps the tree but renumbers the work:
      thread `tid` handles index `2 * s * tid`.  The busy threads are now
      the first ones of the block, so whole warps are either all busy or
      all idle, and a warp with nothing to do skips the branch.

      **Compare the rows `interleaved` and `strided`: that gap is what
      divergence (and the `%`) cost.**  On an H200 the time fell from
      2.58 ms to 1.58 ms at 2^28 (417 to 679 GB/s).
    ]],

    step "Rung 2 to 3: shared-memory bank conflicts" [[
      Shared memory is split into **32 banks**, each 4 bytes wide, and
      word `w` lives in bank `w % 32`.  A warp's access is served in one
      go when its threads touch 32 different banks (or the very same
      word).  When several threads need different words of one bank, the
      access is split into turns: an *n-way* **bank conflict** costs n
      turns.

      In `strided`, neighbouring threads touch words `2s` apart.  At
      `s = 1` a warp's 32 threads fall into 16 banks, two to a bank; at
      `s = 2` into 8 banks, four to a bank; then eight.  Each round of
      the tree is served in several turns.

      The third rung, `sequential`, turns the loop around:

      ```
      for (s = blockDim.x / 2; s > 0; s >>= 1) {
          if (tid < s)
              sdata[tid] += sdata[tid + s];
          __syncthreads();
      }
      ```

      The busy threads are still contiguous (no divergence), and a warp
      now reads 32 consecutive words, one a bank (no conflicts).

      **Compare `strided` and `sequential`: that gap is the bank
      conflicts.**  On an H200: 1.58 ms to 1.23 ms (679 to 876 GB/s).
    ]],

    step "Rung 3 to 4: the idle half and the first add" [[
      `sequential` still wastes its threads.  Each one loads a single
      float, and in the very first round of the tree half of them are
      already idle.  Worse, the only round that touches global memory is
      the load, and each thread has just one 4-byte load in flight: far
      too few bytes on their way to keep the memory system busy.

      The fourth rung, `first_add`, lets every thread load **two**
      elements, a block apart, and add them before the tree starts:

      ```
      i = blockIdx.x * (2 * blockDim.x) + tid;
      v = in[i] + in[i + blockDim.x];
      ```

      A block now covers 512 elements, the grid needs half the blocks,
      and no thread idles in the first round.  Two independent loads per
      thread double the bytes in flight.

      **Compare `sequential` and `first_add`.**  On an H200 the time
      almost halved: 1.23 ms to 0.66 ms (876 to 1628 GB/s).  The tree in
      each block costs the same as before; there are half as many blocks,
      and each thread has twice the bytes on their way.  Notice how much
      one more load per thread bought: it is the first hint that this
      kernel is starved for loads in flight.
    ]],

    step "Rung 5: warp shuffles" [[
      Inside one warp, threads can read each other's registers directly:

      ```
      for (o = 16; o > 0; o /= 2)
          v += __shfl_down_sync(0xffffffff, v, o);
      ```

      After five steps lane 0 holds the warp's sum: no shared memory and
      no `__syncthreads()`.  The fifth rung, `warp_shuffle`, folds every
      warp this way, writes one word per warp to shared memory, and lets
      the first warp fold those.  A block of 256 threads now needs two
      barriers, where the shared-memory tree needed one for each of its
      eight rounds.

      Older code unrolled the last warp with a `volatile` shared array and
      no barrier, trusting that 32 threads move in lockstep.  Since the
      Volta generation the threads of a warp are scheduled independently
      and that trust is misplaced: use the `_sync` intrinsics, whose mask
      names the threads taking part.

      **Compare `first_add` and `warp_shuffle`.**  On an H200: 0.66 ms to
      0.47 ms (1628 to 2268 GB/s), about half of CUB.
    ]],

    step "Rung 6: the memory roof" [[
      Every rung so far launches one block per 256 or 512 elements
      (half a million blocks or more at 2^28) and runs extra passes over
      the partial sums.  The last rung, `vectorized`, changes the shape of the work:

      - it launches only as many blocks as the GPU runs at once;
      - each thread sums **many** elements into a register, reading them
        as `float4` (16 bytes a load) with several loads in flight;
      - each block folds its sum with shuffles and writes one partial;
        the last block to finish adds the partials, all in one launch.

      Now compare three things, at 2^28:

      - **`vectorized` against `CUB`**: the library is the practical
        ceiling, and the last rung should sit right beside it;
      - **their %peak** against 100%: both read at about the speed of a
        device copy;
      - **`warp_shuffle` against `vectorized`**: the same tree, but wide
        loads and fewer blocks.

      On an H200 the last rung and CUB both took 0.25 ms, about 4.3 TB/s,
      a little above the measured copy (4.1 TB/s, which also writes) and
      about 90% of the 4.8 TB/s on the datasheet.  That is the **memory
      roof**: no change to the arithmetic can make a sum faster, because
      reading the input is all the time there is.

      One more thing changes from rung to rung: the last bits of the
      answer.  Floating-point addition is not associative: `(a + b) + c`
      and `a + (b + c)` round differently, so every order of the same
      additions gives its own last digits, and every rung adds in its own
      order.  Most rungs at least keep their order from run to run: each
      block owns a fixed slice and the passes add the partials by index.
      Two ways of finishing lose that.  A sum finished with `atomicAdd`
      into one word adds the partials in whatever order the blocks
      arrive; and `vectorized` hands its tiles out from a counter, so
      which block sums which tile, and so every partial, depends on
      timing.  The same kernel on the same input may then differ in the
      last digits from one run to the next.  That is why each row is
      checked against a double-precision reference with a tolerance, not
      bit for bit.  Where results must be reproducible (a test that
      compares bits, a training run to replay), fix the order: give each
      block a fixed slice, write its partial to its own slot, and add the
      slots in one fixed tree, in a second pass or in the last block.
    ]],

    step "Your turn" [[
      Your kernel is `starter.cu` and its launcher `starter.lua`, copied
      into your workspace when you opened the lab.  The starter is rung 1,
      `interleaved`, run in passes by the launcher: correct and slow.

      **Milestone:** a correct sum over **100x faster than one CPU
      thread** (the x CPU column of the row `your kernel`) at the largest
      size you have measured; measure at 2^28.  That column depends on
      your CPU as much as on your GPU: read the rungs' x CPU first.  If
      `sequential` already passes 100x, the milestone is one idea away,
      and `vectorized` shows how far beyond it you can go.  The second
      milestone is the quiz on warps: select it in the Milestones pane
      and press `Enter`.

      | key | what it does |
      |---|---|
      | `e` | edit your kernel in `$VISUAL` or `$EDITOR` |
      | save | compiles and runs your kernel |
      | `r` / `R` | run the selected row / every row |
      | `s` / `S` | next / previous size |
      | `b` | GB/s against the sizes you ran |
      | `Enter` | a row's figures, and why it failed |
      | `X` | reset to the starter (yours is backed up) |

      From a shell, `cudalab run reduction --exercise --size 2^28` runs
      it too.  The check compares with a double-precision sum on fresh
      random inputs, so a kernel that skips elements or races on its
      output fails however fast it is.

      Five hints go from a nudge to an outline of a solution: sequential
      addressing; several elements per thread; warp shuffles; a grid that
      fills the GPU once, with `float4` loads; and finishing in one or two
      launches.  `H` shows them one at a time: read one, try it,
      measure, then press `H` for the next.
    ]],
  },

  variants = {
    variant {
      id = "interleaved", title = "Interleaved addressing",
      kernel = "reduce_interleaved_divergent",
      why = "One element per thread, tree in shared memory; the tid % (2s) test makes "
         .. "every warp diverge.",
    },
    variant {
      id = "strided", title = "Strided index",
      kernel = "reduce_interleaved_strided",
      why = "Packs the active threads together so warps stop diverging, but the 2*s*tid "
         .. "index causes shared-memory bank conflicts.",
    },
    variant {
      id = "sequential", title = "Sequential addressing",
      kernel = "reduce_sequential",
      why = "Halving stride with contiguous threads: no divergence and conflict-free "
         .. "shared memory, but half the threads idle from the first round.",
    },
    variant {
      id = "first_add", title = "First add during load",
      kernel = "reduce_first_add",
      why = "Each thread adds two global elements while loading, so no thread idles in the "
         .. "first round and the grid needs half the blocks.",
    },
    variant {
      id = "warp_shuffle", title = "Warp shuffles",
      kernel = "reduce_warp_shuffle",
      why = "Each warp folds its 32 values in registers with __shfl_down_sync: two "
         .. "barriers a block instead of one a round of the tree.",
    },
    variant {
      id = "vectorized", title = "One pass with float4 loads",
      kernel = "reduce_vectorized",
      why = "A GPU-filling grid where each thread sums many elements through 16-byte "
         .. "loads, keeping enough bytes in flight to saturate memory.",
    },
  },

  exercise = exercise {
    kernel = "starter.cu",
    launcher = "starter.lua",
    hints = {
      [[Start with the loop.  The rows `interleaved` and `sequential`
        differ only in how the tree is walked: begin with
        s = blockDim.x / 2, halve s each round, and let the threads
        tid < s add partial[tid + s] into partial[tid].  Same sum, no
        divergence, no bank conflicts.]],
      [[Give each thread more than one element.  Load two (then four,
        then a loop over many) and add them in a register before the
        tree starts.  Each block then covers more of the input, so the
        launcher must start fewer blocks: change the ceil_div(count,
        BLOCK) in starter.lua to match what one block now covers.]],
      [[Fold each warp in registers:
        for (int o = 16; o > 0; o /= 2)
          v += __shfl_down_sync(0xffffffff, v, o);
        Lane 0 of each warp then writes its sum to partial[tid / 32];
        after one __syncthreads() the first warp loads those values
        (zero past the last warp) and folds them the same way.]],
      [[Launch a fixed grid instead of one block per slice.  In the
        launcher, local d = gpu.device() gives d.sms and
        d.max_threads_per_sm, and d.sms * (d.max_threads_per_sm // BLOCK)
        blocks fill the GPU once.  In the kernel, read the input as
        float4 (n / 4 of them) in a grid-stride loop,
        for (i = first; i < n / 4; i += gridDim.x * blockDim.x),
        summing into a register, and add the n % 4 leftover floats
        separately.]],
      [[Finish in two launches: the first writes one partial per block
        to a scratch buffer (allocate it with gpu.alloc(blocks) in a
        local outside the launcher's function, so it is made once), the
        second runs a single block of 1024 threads that sums the
        partials into args.output.  Or finish in one: every block
        atomicAdd()s its sum into args.output, after the launcher zeroes
        it with args.output:fill(0) (quicker to write, but the blocks
        arrive in a different order each run, so the last digits may
        change between runs).  Then measure at 2^28 and compare your row
        with `vectorized` and CUB.]],
    },
  },

  quizzes = {
    quiz {
      id = "divergence",
      question = "In the interleaved kernel a warp runs `if (tid % (2 * s) == 0) "
              .. "sdata[tid] += sdata[tid + s];` and only 8 of its 32 threads pass the "
              .. "test. What does the warp do?",
      choices = {
        { text = "The 24 idle threads leave the warp and join another warp that has work to do.",
          feedback = "Warps are fixed: threads 0-31 of a block form the first warp, 32-63 "
                  .. "the second, for their whole life. The hardware cannot regroup them, "
                  .. "which is why the layout of work over thread indices matters so much." },
        { text = "It issues the addition once for the whole warp, with 8 lanes active and "
              .. "24 masked off, and spends the same time as if all 32 had worked.",
          correct = true,
          feedback = "Right. A warp issues one instruction for all its lanes; lanes that "
                  .. "fail the test are masked, not freed, so three quarters of the slot "
                  .. "is wasted. With an else, both sides run in turn. The strided and "
                  .. "sequential rungs pack the busy threads into whole warps." },
        { text = "The 8 active threads run four times faster, because they have the warp's "
              .. "resources to themselves.",
          feedback = "Masked lanes do not lend their time to the others. The warp still "
                  .. "occupies a full issue slot for the instruction; the masked lanes "
                  .. "simply produce nothing." },
        { text = "The kernel fails: all threads of a warp must take the same branch.",
          feedback = "Divergence is legal and the sum stays correct. It only costs time. "
                  .. "What is not allowed is a __syncthreads() that some threads of a "
                  .. "block never reach: that can hang the block." },
      },
    },
    quiz {
      id = "bank_stride",
      question = "In the strided rung at s = 2, thread tid of a warp adds into sdata[4 * tid] "
              .. "(index = 2 * s * tid). Shared memory has 32 banks of 4-byte words. How is "
              .. "the warp's access served?",
      choices = {
        { text = "In one turn: the 32 threads read 32 different words.",
          feedback = "Different words are not enough: they must sit in different banks. Word "
                  .. "4 * tid is in bank (4 * tid) % 32, which takes only the 8 values 0, 4, "
                  .. "..., 28, so the 32 threads share 8 banks." },
        { text = "In 4 turns: a 4-way bank conflict, four threads on each of 8 banks.",
          correct = true,
          feedback = "Right. Words 0, 32, 64 and 96 all sit in bank 0, and so on: 32 threads "
                  .. "over 8 banks is 4 to a bank, 4 turns. A stride of 2 words gives 2-way, 8 "
                  .. "gives 8-way; an odd stride gives none." },
        { text = "In 32 turns: every thread waits for the one before it.",
          feedback = "That is the worst case, all 32 threads on one bank (a stride of 32 "
                  .. "words, like a column of a 32x32 float tile). At a stride of 4 words "
                  .. "the threads spread over 8 banks, so 4 turns." },
        { text = "In 2 turns: the conflict is counted per half-warp of 16 threads.",
          feedback = "For 4-byte words the whole warp is one request over 32 banks. (Wider "
                  .. "accesses are split: 8-byte ones into half-warps, 16-byte ones into "
                  .. "quarter-warps.) Here it is 4 threads a bank: 4 turns." },
      },
    },
    quiz {
      id = "roof100x",
      question = "One CPU thread sums 2^28 floats (1 GiB) in 110 ms. Your GPU copies at 3 TB/s. "
              .. "The milestone asks for 100x. What must your kernel reach?",
      choices = {
        { text = "About 1 TB/s: 1.1 ms for 1.07 GB, a third of the copy bandwidth.",
          correct = true,
          feedback = "Right. 110 ms / 100 = 1.1 ms, and 1.07e9 bytes / 1.1e-3 s = 1.0e12 "
                  .. "B/s. At the full 3 TB/s the sum takes 0.36 ms, 300x: the bar sits a third "
                  .. "of the way up to the memory roof." },
        { text = "100x the CPU's FLOP rate, since the milestone is about speed of arithmetic.",
          feedback = "A sum does one addition per 4 bytes read: it is limited by bandwidth, "
                  .. "not arithmetic. Work out the time (110 ms / 100 = 1.1 ms) and the bytes "
                  .. "it must read in that time." },
        { text = "More than 3 TB/s: 100x is beyond what the memory can deliver.",
          feedback = "1.07 GB in 1.1 ms is 1 TB/s, well under 3 TB/s. With a much faster CPU "
                  .. "thread the bar could pass the roof, which is why the lesson says to read "
                  .. "the rungs' x CPU column first." },
      },
    },
    quiz {
      id = "reproducible",
      question = "Your kernel finishes by having each block atomicAdd its partial into one "
              .. "float. Two runs on the same input print 1234567.8 and 1234567.9. What is "
              .. "going on?",
      choices = {
        { text = "A race: two blocks wrote at once and one partial was lost.",
          feedback = "atomicAdd loses no update. A lost partial of a few thousand values "
                  .. "would change the sum by far more than the last digit." },
        { text = "Float addition is not associative, and the blocks arrive in a different "
              .. "order each run, so the partials are added in a different order.",
          correct = true,
          feedback = "Right. Both answers are within rounding of the exact sum. To get the "
                  .. "same bits every run, write each partial to its own slot and add the "
                  .. "slots in a fixed order, in a second pass." },
        { text = "The GPU computes in lower precision than the CPU and rounds at random.",
          feedback = "FP32 addition on the GPU is IEEE round-to-nearest, as on the CPU, and "
                  .. "deterministic for a given order. What changes between runs is the order "
                  .. "in which the atomics add the partials." },
      },
    },
    quiz {
      id = "fp32_sum",
      question = "A single thread adds 1.0f to a float accumulator 2^28 times. What does it "
              .. "return, and what would fix it?",
      choices = {
        { text = "268,435,456 exactly: every partial sum is a whole number.",
          feedback = "Whole numbers are exact in FP32 only up to 2^24 = 16,777,216. Past it "
                  .. "the gap between floats is 2, and 2^24 + 1 rounds back to 2^24." },
        { text = "16,777,216 (2^24): past it adding 1 rounds away. A tree of partial sums, "
              .. "Kahan compensation or a double accumulator fixes it.",
          correct = true,
          feedback = "Right. With a 24-bit significand, 2^24 + 1 is not a float and rounds "
                  .. "to even, 2^24. A tree keeps the partials small (the GPU kernels do); "
                  .. "Kahan carries the lost low bits; FP64 is exact to 2^53." },
        { text = "Infinity: the sum overflows FP32.",
          feedback = "FP32 reaches about 3.4e38; 2^28 is about 2.7e8. The problem is not "
                  .. "range but precision: past 2^24 the next float is 2 away, so adding 1 "
                  .. "changes nothing." },
      },
    },
    quiz {
      id = "early_exit",
      question = "A block loads a tile into shared memory, and threads past the end of the "
              .. "input return early: if (i >= n) return; then the rest meet at "
              .. "__syncthreads() (cuda.syncthreads() in Numba). What can happen in the last "
              .. "block?",
      choices = {
        { text = "Nothing wrong: threads that returned no longer count at the barrier.",
          feedback = "A barrier that some threads of the block never reach is undefined "
                  .. "behaviour. It may seem to work on one GPU and hang or read garbage on "
                  .. "another; compute-sanitizer synccheck reports it." },
        { text = "The barrier is reached by only part of the block: undefined behaviour, a "
              .. "hang or wrong sums. Keep every thread to the barrier and load 0 past the end.",
          correct = true,
          feedback = "Right. Let out-of-range threads load the identity of the sum (0) and "
                  .. "take part in every barrier, as sdata[tid] = i < n ? in[i] : 0 does in "
                  .. "the rungs; only the final write needs a guard." },
        { text = "A compile error: the compiler forbids return before __syncthreads().",
          feedback = "It compiles. Neither nvcc nor Numba can know which threads reach the "
                  .. "barrier, so the mistake shows only at run time, and only in blocks "
                  .. "where some threads return." },
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
