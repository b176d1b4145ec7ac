-- Layer normalisation over the rows of a matrix, as in every transformer
-- block: a statistics pass and an elementwise pass, memory-bound, where
-- numerical stability, the shape of the rows and occupancy decide.  Four
-- rungs measured against a device copy of the matrix.
return lab {
  id = "layernorm",
  title = "Layer normalisation",
  summary = "Normalise every row of a matrix: stable variance (two passes, Welford), a block "
         .. "or a warp a row, registers and occupancy, float4, against the copy bound.",
  order = 7,

  problem = problem {
    dims = { "rows", "cols" },
    limits = { rows = { 1, "2^20" }, cols = { 1, 65536 } },
    args = {
      -- Mean 3, standard deviation 2: E[x^2] = 13 while the variance is 4,
      -- so the one-pass formula E[x^2] - E[x]^2 throws away about 2 of the
      -- 24 bits of FP32 to cancellation (see the lesson).
      { name = "x", type = "f32", length = function(s) return s.rows * s.cols end,
        fill = { "normal", 3, 2 } },
      { name = "gamma", type = "f32", length = "cols", fill = { "uniform", 0.5, 1.5 } },
      { name = "beta", type = "f32", length = "cols", fill = { "uniform", -0.5, 0.5 } },
      -- The outputs have an RMS of about 1.1.  A stable FP32 kernel lands
      -- within about 5e-7 of the double-precision result on every element
      -- (the worst seen on an H100 over all rungs and sizes), so 1e-5 is a
      -- margin of twenty; a sample variance (divide by cols - 1) instead of
      -- the population variance is off by 1/(2 cols), 5e-4 at 999 columns,
      -- and a wrong mean, scale or shift by far more: caught.
      { name = "y", type = "f32", length = function(s) return s.rows * s.cols end,
        output = { rel = 1e-5 } },
      { name = "rows", type = "i32", value = "rows" },
      { name = "cols", type = "i32", value = "cols" },
    },
    reference = {
      file = "ref/ref.cu", launcher = "ref/ref.lua", f64 = true,
      -- The same formula in Lua (two passes in double precision), to vouch
      -- for the reference kernel at the smallest size.
      check = function(a)
        local rows, cols = a.rows, a.cols
        local x, y = a.x, a.y
        local g, b = {}, {}
        for c = 0, cols - 1 do
          g[c] = a.gamma[c]
          b[c] = a.beta[c]
        end
        local row = {}
        for r = 0, rows - 1 do
          local base = r * cols
          local s = 0.0
          for c = 0, cols - 1 do
            local v = x[base + c]
            row[c] = v
            s = s + v
          end
          local mean = s / cols
          local q = 0.0
          for c = 0, cols - 1 do
            local d = row[c] - mean
            q = q + d * d
          end
          local rstd = 1.0 / math.sqrt(q / cols + 1e-5)
          for c = 0, cols - 1 do
            y[base + c] = (row[c] - mean) * rstd * g[c] + b[c]
          end
        end
      end,
    },
    library = "copy",                              -- read x once, write y once
    bytes = function(s) return 8 * s.rows * s.cols + 8 * s.cols end,
    flops = function(s) return 8 * s.rows * s.cols end,
    bound = "memory",
  },
  sizes = { "1000x999", "65536x256", "256x65536", "16384x4096" },
  time_limit = 180,

  steps = {
    step "Layer normalisation, and what you measure" [[
      Every transformer block normalises its activations twice.  For each
      row (a token) of a rows x cols matrix (cols: the hidden size):

      ```
      mean = sum(x[r][:]) / cols
      var  = sum((x[r][:] - mean)^2) / cols
      y[r][c] = (x[r][c] - mean) / sqrt(var + 1e-5)
                * gamma[c] + beta[c]
      ```

      (var is the population variance: divided by cols, not cols - 1.)

      gamma and beta are learned scales and shifts, one a column.  The
      arithmetic is a few operations an element; like a copy, the kernel
      reads x once and writes y once, so **memory** is the bound, and the
      library row of this lab is a **device copy** of the matrix.  %peak
      and x lib compare every row with it.

      The reference is a GPU kernel of this lab in double precision
      (`ref/ref.cu`), checked once against a Lua version at the smallest
      size.  x is drawn from a normal distribution of mean 3 and standard
      deviation 2, fresh at every check.

      The sizes are chosen to show different regimes:

      | size | a row | what it shows |
      |---|---|---|
      | 1000x999 | odd | correctness, fallbacks |
      | 65536x256 | 1 KiB | many short rows |
      | 256x65536 | 256 KiB | few rows, beyond L1 |
      | 16384x4096 | 16 KiB | the milestone size |

      The last is the shape of a large model's activations (a hidden
      size of 4096); 999 columns are not a multiple of 4.
    ]],

    step "Numerical stability: why not E[x^2] - E[x]^2" [[
      The variance can be computed in one sweep from two sums:
      var = E[x^2] - E[x]^2.  On paper it is the same number.  In
      floating point it is a **catastrophic cancellation**: two large,
      nearly equal numbers are subtracted, and their rounding errors
      become the result.

      How bad?  Each sum carries a relative error of about u (2^-24, 6e-8
      in FP32, more after many additions), so E[x^2] is off by about
      u x E[x^2], and the variance by that much too.  Relative to the
      variance, the error grows by

      ```
      E[x^2] / var = (mean^2 + var) / var
      ```

      - In this lab (mean 3, sd 2): 13 / 4, about 3x: two bits lost.  The
        check would still pass.
      - Activations with mean 1000 and sd 1: a million times.  FP32's 24
        bits leave nothing: the variance comes out as noise, sometimes
        negative, and `sqrt` of a negative number is NaN.

      The stable ways:

      - **two passes**: the mean first, then the sum of (x - mean)^2.  The
        deviations are small and have no common part to cancel.
      - **Welford's method**: one sweep that updates a running mean and
        a running sum of squared deviations, M2, element by element, and
        merges partial results exactly (next steps).

      Every rung of this lab is stable.  A kernel that is fast and wrong
      on some inputs is not a kernel you can ship.
    ]],

    step "Rung 1: a block a row, two passes" [[
      The first rung, `two_pass`, gives each row a block of 256 threads.
      Thread t takes columns t, t + 256, ...; a block-wide sum (shuffles in
      each warp, one shared word a warp, shuffles again) gives the mean;
      a second sweep and sum give the variance; a third sweep writes y.

      x is read **three times**.  But the second and third reads usually
      come from the L1 cache: a 16 KiB row read by one block a moment ago
      is still there.  So at 16384x4096 DRAM traffic is close to the
      ideal, and what costs time is latency: each sweep ends in a
      block-wide sum with barriers, and only then may the next begin.

      **Look at `two_pass` at each size** (x lib is its speed over the
      copy's at the same size).  On an H100: 0.26 ms at 16384x4096 (x lib
      0.70), 0.11 ms at 65536x256 (0.46), 0.34 ms at 256x65536 (0.15).
      The short rows waste the block: 256 threads for 256 columns, one
      element a thread and three barrier-bound sweeps.  The long rows do not fit in L1, and there are only 256 of
      them: 256 blocks cannot fill 132 multiprocessors' worth of latency.
    ]],

    step "Rung 2: Welford in one sweep" [[
      The second rung, `welford`, computes mean and variance in one sweep.
      Each thread keeps a count n, a running mean m and M2, the sum of
      squared deviations from m.  A new value x updates them without any
      cancellation:

      ```
      n += 1;  d = x - m;
      m += d / n;  M2 += d * (x - m);
      ```

      Two partial results (nA, mA, M2A) and (nB, mB, M2B) merge exactly
      (Chan et al.):

      ```
      n  = nA + nB;   d = mB - mA;
      m  = mA + d * nB / n;
      M2 = M2A + M2B + d^2 * nA * nB / n
      ```

      so a warp merges its lanes' results with five rounds of shuffles
      (three values a round), and the warps' results meet in shared
      memory.  var = M2 / cols.  x is read twice: once for the
      statistics, once to write y.

      **Compare `two_pass` and `welford` at each size** (H100):

      - 256x65536: 0.34 to 0.24 ms.  A 256 KiB row does not fit in L1,
        so two_pass's extra sweep really went to L2 and DRAM; saving it
        pays.
      - 16384x4096: 0.26 ms both.  The sweep it saves was an L1 hit.
      - 65536x256: 0.11 to 0.17 ms, *slower*.  A merge costs three
        shuffles and a division where a sum costs one shuffle, and the
        update divides for every element.

      Welford is the tool for data you can only see once (streams, rows
      split over several blocks, rows too long for any cache), not a
      speed-up by itself.
    ]],

    step "Rung 3: a warp a row, the row in registers" [[
      The third rung, `warp_row`, changes the shape: **one warp a row**,
      eight rows a block of 256 threads.  Lane l loads columns l, l + 32,
      ... into registers, V of them (the launcher picks V = 8, 32, 64 or
      128, the smallest that holds the row).  Then:

      - the mean is a warp sum: five shuffles;
      - the variance is the sum of (v - mean)^2 over the **registers**:
        the exact two-pass formula without a second read;
      - each lane writes its columns.

      One read of x, no shared memory, no `__syncthreads()`: a warp never
      waits for the rest of its block.  Rows longer than 4096 columns do
      not fit in a warp's registers; they go to rung 2's kernel.

      **Compare `two_pass` and `warp_row`** (H100):

      - 65536x256: 0.11 to 0.05 ms, x lib 0.96.  Short rows are where a
        warp a row shines: 8 values a lane, no barriers.
      - 16384x4096: 0.26 ms both.  No gain at all.  The next step says
        why.
    ]],

    step "Occupancy: registers, warps and bytes in flight" [[
      A multiprocessor (SM) hides the latency of memory by switching
      between resident warps: while some wait for their loads, others
      compute.  **Occupancy** is how many warps it holds, out of the most
      it can (64 on an H100), and it is limited by whichever resource
      runs out first: registers, shared memory, or threads.

      `warp_row` at 4096 columns keeps 128 values a lane, and the
      compiler gives it **198 registers a thread**.  An SM has 65536
      registers; a block of 256 threads needs 198 x 256 = 50688 of them,
      so only **one block, 8 warps, 12% occupancy** fits.  Each warp has
      a 16 KiB row in flight while it loads; then it computes and
      writes, and during those phases nothing of its row is in flight.  Eight warps an SM are too
      few to keep memory busy through all that.

      What helps:

      - **fewer instructions, fewer registers**: 16-byte loads move four
        columns per instruction (rung 4);
      - **more threads a row**: a block of 128 threads a row holds 32
        values a thread in about 60 registers, and a full 64 warps fit;
        the block-wide sums cost two barriers a row, which 64 resident
        warps easily hide.

      Occupancy is not a goal in itself (rung 2 is fully occupied and
      slow), but when a kernel is memory-bound and its warps spend long
      phases not loading, too few of them leave the memory idle.  The log
      shows your kernel's registers a thread each time it compiles: read
      that line whenever your kernel surprises you.
    ]],

    step "Rung 4: 16-byte loads and stores" [[
      The last rung, `vec4`, keeps rung 3's structure and moves four
      columns at a time.  When cols is a multiple of 4, every row starts
      on a 16-byte boundary (the buffers start on 256-byte boundaries),
      and lane l handles the float4 groups l, l + 32, ...: a warp's load
      reads 512 contiguous bytes, and gamma and beta are read the same
      way.  A quarter of the load and store instructions, and the 4096
      column case drops to 158 registers.

      When cols is not a multiple of 4, a row starts anywhere, and a
      float4 access would be misaligned (an error, not just slow): the
      rung falls back to rung 2's kernel, as it does for rows over 4096
      columns.  Check the 1000x999 row: it runs the fallback.

      **Compare `warp_row` and `vec4`, and `vec4` with `device copy`, at
      16384x4096** (H100): 0.26 to 0.20 ms, 92% of the copy (0.18 ms).
      The remaining gap is the occupancy of the previous step, still one
      block an SM; a kernel with several warps a row and 16-byte loads
      reaches the copy.
    ]],

    step "Your turn" [[
      Your kernel is `starter.cu` and its launcher `starter.lua`, copied
      into your workspace when you opened the lab; it runs as the row
      `your kernel`.  The starter is a block a row with two shared-memory
      trees: correct, stable, and slow.

      **Milestones:**

      1. **correct**: `your kernel` correct at the largest size you have
         measured (run 1000x999 too: odd columns need a fallback from any
         float4 path);
      2. **near the copy**: at 16384x4096, **80% of the copy bandwidth**
         or more (the %peak column; `vec4` shows 92% on an H100);
      3. the quizzes on stability and on occupancy: select them in the
         Milestones pane and press `Enter`.

      | key | what it does |
      |---|---|
      | `e` | edit your kernel in `$VISUAL` or `$EDITOR` |
      | save | compiles and runs your kernel |
      | `r` / `R` | run the selected row / every row |
      | `s` / `S` | next / previous size |
      | `Enter` | a row's figures, and why it failed |
      | `X` | reset to the starter (yours is backed up) |

      From a shell: `cudalab run layernorm --exercise --size 16384x4096`.
      Four hints go from a nudge to an outline of a kernel at the copy's
      speed; `H` shows them one at a time.
    ]],
  },

  variants = {
    variant {
      id = "two_pass", title = "Block a row, two passes",
      file = "rungs/two_pass.cu", launcher = "rungs/two_pass.lua",
      why = "Mean, then squared deviations, then the output: three sweeps over the row, each "
         .. "ending in a block-wide sum; stable, barrier-bound.",
    },
    variant {
      id = "welford", title = "Block a row, Welford",
      file = "rungs/welford.cu", launcher = "rungs/welford.lua",
      why = "Mean and variance in one sweep, merged exactly across lanes and warps: one read "
         .. "fewer, which pays only when the row does not stay in L1.",
    },
    variant {
      id = "warp_row", title = "Warp a row, row in registers",
      file = "rungs/warp_row.cu", launcher = "rungs/warp_row.lua",
      why = "One warp a row holding it in registers: one read, no barriers; shines on short "
         .. "rows, but 4096 columns take 198 registers and one block an SM.",
    },
    variant {
      id = "vec4", title = "Warp a row, float4",
      file = "rungs/vec4.cu", launcher = "rungs/vec4.lua",
      why = "Rung 3 with 16-byte loads and stores when cols % 4 == 0 (rung 2 otherwise): "
         .. "a quarter of the instructions, fewer registers.",
    },
  },

  exercise = exercise {
    kernel = "starter.cu",
    launcher = "starter.lua",
    hints = {
      [[Replace the shared-memory trees with warp shuffles: fold each
        warp's value with five __shfl_xor_sync steps (every lane ends with
        the warp's sum), write one word a warp to shared memory, and let
        every thread add those up after one __syncthreads().  Keep the
        two-pass arithmetic: it is what keeps the variance accurate.]],
      [[Read x once.  With blockDim.x threads a row, thread t can keep its
        columns t, t + blockDim.x, ... in a register array of fixed size
        (say float v[32]), compute the mean from them, then the sum of
        (v[j] - mean)^2 from the same registers, then write y.  Guard
        every j with if (t + j * blockDim.x < cols), and write the loops
        with constant bounds and #pragma unroll so the array stays in
        registers.]],
      [[Give a row as many threads as it needs, not always 256: at 4096
        columns and 32 values a thread, 128 threads (4 warps).  Compute
        the block size in starter.lua (whole warps, at most 1024), and
        look at the log: about 60 registers a thread lets 64 warps fit on
        an SM.  Short rows (256 columns) need only 8 threads of 32 values:
        give them a warp, or a warp per row as in rung 3.]],
      [[When cols % 4 == 0, read and write float4: the row starts at
        x + row * cols, which is then 16-byte aligned; cast to
        const float4 * and let thread t take groups t, t + blockDim.x, ...
        (8 of them hold 32 columns); read gamma and beta the same way.
        Keep a scalar kernel for the other rows (1000x999 checks it).
        Then compare your %peak with `vec4` at 16384x4096.]],
    },
  },

  quizzes = {
    quiz {
      id = "stability",
      question = "A row of activations has mean 1000 and standard deviation 0.5. A kernel "
              .. "computes var = E[x^2] - E[x]^2 with FP32 sums. What comes out?",
      choices = {
        { text = "The right variance, about 0.25, to FP32 precision: both sums are accurate "
              .. "to about 1e-7.",
          feedback = "Each sum is accurate to about 1e-7 *of itself*. E[x^2] is about 1e6, so "
                  .. "its error is about 0.1 or more, and the variance it is subtracted down "
                  .. "to is 0.25. The errors of the sums become the result." },
        { text = "Noise: E[x^2] is about 1e6, where one FP32 step is 0.06, so the "
              .. "difference of 0.25 keeps at most a couple of correct bits; it can even come "
              .. "out negative, and its square root NaN.",
          correct = true,
          feedback = "Right. The relative error grows by (mean^2 + var) / var, four million "
                  .. "here. Two passes (mean first, then squared deviations) or Welford's "
                  .. "update avoid subtracting two large, nearly equal numbers." },
        { text = "An overflow: squaring values near 1000 exceeds the range of FP32.",
          feedback = "1000^2 is 1e6, and FP32 reaches 3.4e38: range is no problem. Precision "
                  .. "is: near 1e6, FP32 can only represent multiples of 0.0625." },
        { text = "A result off by exactly eps = 1e-5, since the formula leaves eps out.",
          feedback = "eps is added after the variance is computed, by every method alike. The "
                  .. "trouble is the variance itself, computed as the small difference of two "
                  .. "large sums." },
      },
    },
    quiz {
      id = "occupancy",
      question = "A kernel uses 198 registers a thread and runs blocks of 256 threads. An "
              .. "H100 SM has 65536 registers and holds at most 64 warps. How many warps "
              .. "of this kernel can an SM hold at once?",
      choices = {
        { text = "64: the SM's maximum, since 256 threads are only 8 warps a block.",
          feedback = "Threads are not the binding limit here; registers are. 64 warps of 32 "
                  .. "threads at 198 registers would need 405,504 registers, six times what "
                  .. "the SM has." },
        { text = "10: 65536 / 198 registers is 331 threads, about 10 warps.",
          feedback = "Close, but the SM places whole blocks, not single warps. One block "
                  .. "needs 198 x 256 = 50,688 registers; a second would need 101,376 in all, "
                  .. "more than 65,536." },
        { text = "8: one block of 8 warps fits (50,688 registers), a second does not.",
          correct = true,
          feedback = "Right: 8 of 64 warps, 12.5% occupancy. That is rung 3 at 4096 "
                  .. "columns: too few warps to keep memory busy while they compute. Fewer "
                  .. "values a thread (more threads a row) or fewer instructions (float4) "
                  .. "help." },
        { text = "2: one warp a scheduler, and an SM has four schedulers, so half of them idle.",
          feedback = "An SM has four schedulers, but each can hold many warps (16 on an "
                  .. "H100), and they are limited by the SM's registers, which here allow one "
                  .. "block of 8 warps: two a scheduler." },
      },
    },
  },

  milestones = {
    milestone {
      id = "correct",
      text = "Your layer normalisation is correct",
      check = checks.correct(),
    },
    milestone {
      id = "near_copy",
      text = "Your layer normalisation reaches 80% of the copy bandwidth at 16384x4096",
      check = checks.at_least("pct_peak", 80, "%"),
    },
    milestone {
      id = "stability",
      text = "Can explain catastrophic cancellation in E[x^2] - E[x]^2",
      quiz = "stability",
    },
    milestone {
      id = "occupancy",
      text = "Can work out occupancy from a kernel's registers",
      quiz = "occupancy",
    },
  },
}
