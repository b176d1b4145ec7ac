-- A 5 x 5 stencil (a weighted convolution with zero padding) over a float
-- image: each input is used by 25 outputs, so where the reuse is served
-- from decides the speed.  Four rungs from one thread a pixel to a shared
-- tile with several pixels a thread, measured against a device copy of the
-- image (one read and one write of every pixel: the memory bound).
return lab {
  id = "stencil",
  title = "A 5x5 stencil",
  summary = "Convolve an image with a 5x5 filter: cached loads, the weights, a shared tile "
         .. "with a halo, several pixels a thread, against the copy bound.",
  order = 6,

  problem = problem {
    dims = { "rows", "cols" },
    limits = { rows = { 1, 16384 }, cols = { 1, 16384 } },
    args = {
      { name = "input", type = "f32", length = function(s) return s.rows * s.cols end,
        fill = { "uniform", -1, 1 } },
      { name = "weights", type = "f32", length = 25, fill = { "uniform", -1, 1 } },
      -- An output is a sum of 25 products of numbers in [-1, 1]: its RMS is
      -- about 1.7, and FP32 rounding in any order of the 25 additions stays
      -- below 1e-6 of that (7.6e-7 was the worst element seen, 1e-7 the
      -- norm).  1e-5 leaves a margin of ten, and a pixel that misses a tap
      -- or takes one from the wrong place is off by a few tenths: caught.
      { name = "output", type = "f32", length = function(s) return s.rows * s.cols end,
        output = { rel = 1e-5 } },
      { name = "rows", type = "i32", value = "rows" },
      { name = "cols", type = "i32", value = "cols" },
    },
    reference = {
      file = "ref/ref.cu", launcher = "ref/ref.lua", f64 = true,
      -- The same sum in Lua, to vouch for the reference kernel at the
      -- smallest size: rows of the image are copied into Lua tables once,
      -- so the 25 taps of a pixel read tables, not views.
      check = function(a)
        local rows, cols = a.rows, a.cols
        local input, out = a.input, a.output
        local w = {}
        for k = 0, 24 do w[k] = a.weights[k] end
        local img = {}
        for r = 0, rows - 1 do
          local row, base = {}, r * cols
          for c = 0, cols - 1 do row[c] = input[base + c] end
          img[r] = row
        end
        for r = 0, rows - 1 do
          local base = r * cols
          for c = 0, cols - 1 do
            local acc = 0.0
            for dy = -2, 2 do
              local row = img[r + dy]
              if row then
                local k = (dy + 2) * 5 + 2
                for dx = -2, 2 do
                  local v = row[c + dx]
                  if v then acc = acc + w[k + dx] * v end
                end
              end
            end
            out[base + c] = acc
          end
        end
      end,
    },
    library = "copy",                              -- the memory bound: copy the image once
    bytes = function(s) return 8 * s.rows * s.cols end,
    flops = function(s) return 2 * 25 * s.rows * s.cols end,
    bound = "memory",
  },
  sizes = { "300x301", "2048x2048", "4096x4096", "8192x8192" },
  time_limit = 180,

  steps = {
    step "A 5x5 stencil, and what you measure" [[
      Each output pixel is a weighted sum of the 5 x 5 input pixels
      around it:

      ```
      out[r][c] = sum over dy, dx in -2..2 of
                  w[dy+2][dx+2] * in[r+dy][c+dx]
      ```

      Where the window leaves the image the input counts as 0 (**zero
      padding**), so the output has the same size as the input.  This is
      the computation behind blurs, sharpening and edge detection, one
      channel of a convolutional layer, and the stencils of physics codes
      (a heat equation step is a 3 x 3 or 5 x 5 stencil).

      **What is measured.**  Every row computes the same output from the
      same fresh inputs (pixels and 25 weights, uniform in [-1, 1)).  The
      reference is a GPU kernel of this lab working in double precision
      (`ref/ref.cu`), itself checked against a Lua version at the smallest
      size.

      - **rate** counts 8 bytes a pixel: each input read once, each output
        written once.  That is all a stencil must move.
      - The library row is a **device copy** of the image, the same 8 bytes
        a pixel: the fastest anything can read and write them, and the bar
        of the x lib and %peak columns.
      - **TFLOP/s** counts 50 operations a pixel (25 multiplies, 25 adds).

      The sizes: **300x301** is odd in both directions (partial blocks on
      every side) and small enough for the Lua reference, **2048x2048**
      (16 MiB) is over in microseconds, **4096x4096** and **8192x8192**
      (256 MiB) are where bandwidth and instruction counts decide.
    ]],

    step "Arithmetic intensity: what should bound this kernel?" [[
      **Arithmetic intensity** is the work done for each byte moved from
      memory.  Read each input once and write each output once, and this
      stencil does 50 operations for 8 bytes: about 6 operations a byte.
      An H100 does about 67 TFLOP/s in FP32 and copies about 3 TB/s: a
      kernel needs some 20 operations a byte before arithmetic, not
      memory, limits it.  At 6, **memory** is the bound, and the copy row
      shows where it lies.

      But that 6 assumes each input is fetched from memory once, while 25
      different outputs need it.  A kernel that fetched all 25 copies from
      memory would move about 100 bytes a pixel for its 50 operations, an
      intensity of 0.5, a dozen times further from the arithmetic limit.
      So the whole game is **where the 25 uses of each input are served
      from**:

      - from the L1 cache, automatically, if the neighbours that need it
        run close together (rung 1);
      - from shared memory, where a block puts it on purpose (rung 3);
      - from registers, where one thread uses it for several outputs
        (rung 4).

      Each level is faster and needs fewer instructions a use.  Keep an
      eye on the **instruction count** as well as on bytes: a kernel whose
      bytes come from cache can still be slow because it issues too many
      loads to fetch them.
    ]],

    step "Rung 1: one thread a pixel" [[
      The first rung, `naive`, gives each pixel a thread (blocks of 32 x 8)
      and reads everything from global memory:

      ```
      for (dy = -2; dy <= 2; ++dy)
        for (dx = -2; dx <= 2; ++dx)
          if (inside(r + dy, c + dx))
            acc += w[dy+2][dx+2] * in[r+dy][c+dx];
      ```

      Per pixel: 25 input loads, 25 weight loads, 25 bounds tests, 25
      FMAs.  The loads are well behaved: the 32 threads of a warp read 32
      neighbouring inputs for each tap (coalesced), and an input fetched
      for one pixel is still in L1 when its neighbours need it, and L2
      catches most of what L1 misses.  So DRAM traffic stays close to the
      ideal 8 bytes a pixel.  What remains is
      **fifty load instructions a pixel**, each going through the L1's
      address and tag logic, and the bounds tests around them.

      **Compare `naive` with `device copy`** at 8192x8192.  On an H100
      the rung took 0.62 ms, 29% of the copy (0.18 ms): memory is far
      from busy.
    ]],

    step "Rung 2: the weights, and the constant cache" [[
      Half of rung 1's loads fetch weights, and all 32 threads of a warp
      fetch the *same* weight at the same moment.  GPUs have a place made
      for such data: **constant memory** (`__constant__ float w[25]`), a
      small read-only space with its own cache that serves a warp reading
      one address as a **broadcast**: one access for all 32 threads.  An
      FMA can even take a constant operand directly, with no load at all.
      Shared memory broadcasts too, and so does the L1 cache: a warp
      reading a single address is one request however many threads ask.

      A constant array is filled from the host with
      `cudaMemcpyToSymbol`, which cudalab's launcher API does not offer
      (a launcher reaches the GPU only through the `gpu` table), and this
      lab's weights change at every check anyway.  So the second rung,
      `weights_shared`, lets each block fetch them itself: 25 threads load
      one weight each into shared memory, one barrier, and every thread
      copies the 25 into registers before its loop.  The loop is left
      with 25 input loads and 25 FMAs.

      **Compare `naive` and `weights_shared`.**  Predict first: half of
      the loads are gone, so should it be faster?  On an H100 at
      8192x8192 it came out *slower*: 0.68 ms against 0.62 ms.

      The weights were never the cost.  In rung 1 every weight load is a
      broadcast: one request a warp, answered by L1 from the first block
      on.  Removing them saves almost nothing, and the rung pays for it:
      a barrier, and 25 more values to hold, which raise its registers
      from 32 to 39 a thread.  At 39, six blocks of 256 threads fit on an
      SM instead of eight: 48 resident warps instead of 64, fewer to hide
      the latency of the input loads.  Reading `ws[k]` straight from
      shared memory inside the bounds-tested loop was worse still, 30%
      slower than rung 1: on Hopper each such predicated shared load
      recomputed its address.

      Before optimising a load, ask whether it was expensive, and then
      measure.  The inputs, not the weights, are where the loads are.
    ]],

    step "Rung 3: a shared tile with a halo" [[
      The third rung, `tile`, stages the inputs themselves.  A block of
      32 x 8 threads computes a 32 x 8 patch of the output.  Those pixels
      need a 36 x 12 window of the input: the patch plus a **halo** two
      pixels wide on every side.  The block copies the window into shared
      memory together (432 values for 256 threads), writing 0 where the
      window leaves the image, then meets at one `__syncthreads()`.

      ```
      for (i = tid; i < 12 * 36; i += 256)  // together
          tile[i / 36][i % 36] = inside ? in[...] : 0;
      __syncthreads();
      for dy, dx:
          acc += w[dy][dx] * tile[ty + dy][tx + dx];
      ```

      What changed:

      - each input is fetched from global memory by one block instead of
        by 25 threads: 1.7 global loads a pixel (the halo costs 0.7);
      - the zeros are in the tile, so the 25 taps need **no bounds test**;
      - the 25 reads now come from shared memory, where a warp reads 32
        consecutive words of one tile row: one word a bank, no conflicts.

      **Compare `naive` and `tile`.**  On an H100: 0.62 ms to 0.53 ms,
      1.16x.  A real gain, but not a large one: L1 was already serving
      most of rung 1's reuse, and the tile still costs **25 shared-memory
      loads a pixel**, so load instructions are still the bottleneck.
    ]],

    step "Rung 4: several pixels a thread" [[
      A thread that computes the pixel below its own needs four of the
      same five input rows.  The fourth rung, `tile_rows`, gives each
      thread **8 pixels of one column**: blocks of 32 x 8 threads cover
      32 x 64 pixels, from a 68 x 36 tile.  A thread walks down the 12 tile
      rows its pixels need, loads five neighbours of each row into
      registers, and adds them into every one of its pixels that uses that
      row (up to five):

      ```
      for (i = 0; i < 8 + 4; ++i) {     // unrolled
          v0..v4 = tile[ty*8 + i][tx .. tx+4];
          for (j = 0; j < 8; ++j)       // unrolled too
              if (0 <= i - j && i - j < 5)
                  acc[j] += w[i-j][0]*v0 + ...
                          + w[i-j][4]*v4;
      }
      ```

      Shared loads a pixel: 12 x 5 / 8 = 7.5 instead of 25.  The 25
      weights live in registers, loaded once for 8 pixels.  The halo
      shrinks too: 1.2 global loads a pixel.  The loops must unroll
      completely, so that `acc[j]` and `w[k]` are registers and not
      memory: the rung compiles to 64 registers a thread and no spills
      (the log shows the same line for your kernel).

      **Compare `tile` and `tile_rows`.**  On an H100: 0.53 ms to 0.31 ms,
      twice as fast as rung 1 and 58% of the copy.  Now look at 300x301:
      there `tile_rows` is the slowest rung.  Its blocks cover 32 x 64
      pixels, so the small image makes only 50 of them, for 132 SMs.
    ]],

    step "Where the time goes now" [[
      The ladder at 8192x8192 on an H100:

      | rung | global | shared | time |
      |---|---|---|---|
      | `naive` | 50 | 0 | 0.62 ms |
      | `weights_shared` | 25 | 0 | 0.68 ms |
      | `tile` | 1.7 | 25 | 0.53 ms |
      | `tile_rows` | 1.2 | 7.5 | 0.31 ms |
      | `device copy` | 1 | 0 | 0.18 ms |

      (loads a pixel from global and from shared memory; the first two
      rungs also test bounds 25 times a pixel, the tiled ones never in
      their sums.)

      Three lessons, in the order they appeared:

      - **Reuse decides.**  Every rung fetches each input from DRAM
        about once (the caches catch the halos and the rest); what
        changed is where the other 24 uses of each input were served
        from, and how many instructions that took.
      - **Shared memory pays when it replaces work**, not merely when it
        replaces a cached load: the tile removed bounds tests and global
        loads, but its 25 shared loads a pixel kept it slow; reuse in
        registers is what cut the count.
      - **Broadcast reads are cheap.**  Data that every thread reads at
        once (weights, constants) costs one request a warp, wherever it
        lives.

      What is left between `tile_rows` and the copy: the halo (20% extra
      reads), the barrier between loading and computing (a block cannot
      start its arithmetic before its slowest load arrives), and still
      25 FMAs and 7.5 shared loads a pixel, with the address arithmetic
      around them.  More pixels a thread (16 rows), fewer
      threads a block to keep more blocks resident, or loads of the next
      tile overlapped with the arithmetic on this one all help.
    ]],

    step "Your turn" [[
      Your kernel is `starter.cu` and its launcher `starter.lua`, copied
      into your workspace when you opened the lab; it runs as the row
      `your kernel`.  The starter is rung 1, `naive`: correct and slow.

      **Milestones:**

      1. **correct**: `your kernel` correct at the largest size you have
         measured (odd sizes included: run 300x301 too);
      2. **faster**: at 8192x8192, at least **1.75x faster than `naive`**
         (the x column of the milestone compares your time with the
         rung's);
      3. the quiz on counting loads: select it in the Milestones pane and
         press `Enter`.

      | key | what it does |
      |---|---|
      | `e` | edit your kernel in `$VISUAL` or `$EDITOR` |
      | save | compiles and runs your kernel |
      | `r` / `R` | run the selected row / every row |
      | `s` / `S` | next / previous size |
      | `Enter` | a row's figures, and why it failed |
      | `X` | reset to the starter (yours is backed up) |

      From a shell: `cudalab run stencil --exercise --size 8192x8192`.
      Four hints go from a nudge to an outline of the tiled kernel with
      several pixels a thread; `H` shows them one at a time.
    ]],
  },

  variants = {
    variant {
      id = "naive", title = "One thread a pixel",
      file = "rungs/naive.cu", launcher = "rungs/naive.lua",
      why = "25 input and 25 weight loads from global memory a pixel, a bounds test a tap; "
         .. "coalesced, and the reuse is left to the L1 cache.",
    },
    variant {
      id = "weights_shared", title = "Weights through shared memory",
      file = "rungs/weights_shared.cu", launcher = "rungs/weights_shared.lua",
      why = "Each block fetches the 25 weights once into shared memory, each thread into "
         .. "registers: it tests whether the weight loads were costly (they were broadcasts).",
    },
    variant {
      id = "tile", title = "Shared tile with a halo",
      file = "rungs/tile.cu", launcher = "rungs/tile.lua",
      why = "A block stages its 36x12 input window (zeros outside) in shared memory: one "
         .. "global load a pixel plus halo, no bounds tests, 25 shared loads a pixel.",
    },
    variant {
      id = "tile_rows", title = "Tile, 8 pixels a thread",
      file = "rungs/tile_rows.cu", launcher = "rungs/tile_rows.lua",
      why = "Each thread computes 8 pixels of a column from 12 tile rows, weights in "
         .. "registers: 7.5 shared loads a pixel instead of 25, a smaller halo.",
    },
  },

  exercise = exercise {
    kernel = "starter.cu",
    launcher = "starter.lua",
    hints = {
      [[Count instructions, not bytes.  The starter's DRAM traffic is
        already close to 8 bytes a pixel (the L1 cache serves the reuse);
        its time goes into 50 loads and 25 bounds tests a pixel.  Every
        change worth making removes some of them.]],
      [[Stage a tile.  With blocks of 32 x 8 threads, declare
        __shared__ float tile[12][36]; let the threads copy the window
        rows blockIdx.y * 8 - 2 .. + 11 and columns blockIdx.x * 32 - 2 ..
        + 35 in a loop (for (i = tid; i < 12 * 36; i += 256)), writing 0
        outside the image; __syncthreads(); then sum over
        tile[ty + dy][tx + dx] with no bounds tests.  Return early only
        after the barrier.]],
      [[Reuse in registers.  Let each thread compute R pixels of one
        column (R = 4 or 8): the block then covers 32 x 8R pixels and its
        tile has 8R + 4 rows (change the grid's y in starter.lua to match).
        Walk the R + 4 tile rows once: load the five values of a row into
        registers and add them into each of the R outputs that uses that
        row.  Make every loop bound a compile-time constant and write
        #pragma unroll, so acc[R] and the weights stay in registers.]],
      [[Load the 25 weights into registers once a thread (float k[25],
        from a __shared__ copy or straight from global memory: they are
        broadcast reads either way).  Then tune: R = 8 or 16, blocks of
        32 x 4 or 32 x 8 threads, and check the log for registers and
        spills.  At 8192x8192, compare your row with `tile_rows` and the
        device copy.]],
    },
  },

  quizzes = {
    quiz {
      id = "loads",
      question = "A thread computes R pixels of one column of the 5x5 stencil from a shared "
              .. "tile, loading each tile value it needs into a register once. How many "
              .. "shared-memory loads does it issue a pixel for R = 4?",
      choices = {
        { text = "25: each pixel still needs its 25 inputs.",
          feedback = "That is one pixel a thread (rung 3). The R pixels of a column share "
                  .. "rows: pixel j and pixel j + 1 use four of the same five input rows, so "
                  .. "each loaded row serves up to five pixels." },
        { text = "10: the 4 pixels need 4 + 4 = 8 input rows of 5 values, 40 loads for 4 "
              .. "pixels.",
          correct = true,
          feedback = "Right: (R + 4) x 5 / R. R = 8 gives 7.5 (rung 4), R = 16 gives 6.25; "
                  .. "it approaches 5 as R grows, while the registers a thread needs grow "
                  .. "with R." },
        { text = "5: one row of five values a pixel.",
          feedback = "That is the limit as R grows without bound. With R = 4 the four extra "
                  .. "rows at the top and bottom of the column are shared by only a few "
                  .. "pixels." },
        { text = "6.25: 25 loads shared by the 4 pixels.",
          feedback = "Dividing 25 by 4 assumes every pixel's 25 inputs are loaded once for "
                  .. "all four. But the pixels overlap only along the column: their windows "
                  .. "cover 8 rows of 5 values, 40 loads." },
      },
    },
  },

  milestones = {
    milestone {
      id = "correct",
      text = "Your 5x5 stencil is correct, zero padding included",
      check = checks.correct(),
    },
    milestone {
      id = "faster",
      text = "Your stencil is at least 1.75x faster than the naive rung at 8192x8192",
      check = checks.speedup_over("naive", 1.75, "x"),
    },
    milestone {
      id = "loads",
      text = "Can count the loads a tiled kernel issues a pixel",
      quiz = "loads",
    },
  },
}
