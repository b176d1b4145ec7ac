-- Prefix sum (scan): every output depends on every input before it, yet a
-- GPU can compute it at nearly the speed of a copy.  Four rungs from a
-- textbook block scan to a single pass with decoupled look-back, measured
-- against CUB's DeviceScan::InclusiveSum and the measured copy bandwidth
-- bytes, with the learner's kernel in the same table.
return lab {
  id = "scan",
  title = "Prefix sum (scan)",
  summary = "Inclusive scan of 2^28 floats: Kogge-Stone, Brent-Kung, registers and shuffles, "
         .. "then one pass with decoupled look-back, against CUB and the copy bound.",
  order = 5,

  problem = problem {
    dims = { "n" },
    limits = { n = { 1, "2^28" } },
    args = {
      { name = "input", type = "f32", length = "n", fill = { "uniform", 0, 1 } },
      -- The judge: the error norm within 2e-5 of the reference's norm, and
      -- every element within 2e-5 of max(|its value|, the output's RMS).
      -- Every correct order of FP32 additions passes with room: the worst
      -- seen on an H100 at 2^28 was 3.7e-6 (per element), from the rungs
      -- and CUB that chain their tiles' totals one after another (65536
      -- additions onto a running sum near 1.3e8, where an FP32 step is 8).
      -- Tree-shaped scans stay near 2e-7.  A mistake does not hide: a lost
      -- or repeated tile total is off by thousands; at 2^14+3 the values
      -- stay below 8200 and their RMS is about 4700, so any element wrong
      -- by 0.2 or more fails there (an exclusive scan fails on most of its
      -- elements, and so does a dropped or doubled input of 0.2 or more).
      { name = "output", type = "f32", length = "n", output = { rel = 2e-5 } },
      { name = "n", type = "i64", value = "n" },
    },
    builtin = { "scan", input = "input", output = "output", n = "n" },
    reference = "builtin",
    cpu = "builtin",
    library = "builtin",                           -- CUB DeviceScan::InclusiveSum
    bytes = function(s) return 8 * s.n end,        -- each input read once, each output once
    flops = function(s) return s.n end,            -- one addition an element at the least
    bound = "memory",
  },
  sizes = { "2^14+3", "2^20+3", "2^24", "2^28" },
  time_limit = 180,

  steps = {
    step "What a scan is, and what you measure" [[
      An **inclusive scan** (prefix sum) turns a list into its running
      totals: `out[i] = in[0] + in[1] + ... + in[i]`.  From
      `3 1 4 1 5` it makes `3 4 8 9 14`.  The *exclusive* scan leaves
      the element itself out (`0 3 4 8 9`).

      Scans are everywhere a GPU must decide *where things go*: stream
      compaction (each kept row's position is the scan of the keep flags:
      the pipeline lab's filter), radix sort (each key's slot), sparse
      matrices (row offsets), allocating output space for threads that
      produce different amounts, cumulative sums in data processing.

      A scan looks hopelessly sequential: output i needs output i - 1.
      Yet at 2^28 floats the best rung here runs at 90% of the speed of a
      plain copy.  This lab climbs there in four rungs.

      **What is measured.**  Every row computes the same inclusive scan of
      n floats, uniform in [0, 1), fresh for every check:

      - the four rungs, your kernel (`your kernel`), CUB's
        `DeviceScan::InclusiveSum` (the library row `CUB scan`: **x lib**
        compares with it) and the CPU (one thread, all threads);
      - **rate** counts 8 bytes an element, one read and one write, the
        least any scan can move; **%peak** divides it by the copy
        bandwidth measured on your GPU (the BW line of the Device pane),
        so 100% means "as fast as copying the array".

      The sizes: **2^14+3** is where a wrong element stands out (next
      step), **2^20+3** and **2^24** show launches and passes, and **2^28**
      (1 GiB of floats) is where time is decided by memory.
    ]],

    step "Floats do not add up the same way twice" [[
      FP32 addition is not associative: `(a + b) + c` and `a + (b + c)`
      can differ in the last bit, and every scan algorithm adds in a
      different order.  So no two rows of this table agree bit for bit,
      and the check compares with a double-precision scan instead, with a
      **relative tolerance of 2e-5**: the error of the whole output, and
      of every element, must stay within 2e-5 of the reference (of the
      element's own value, or of the output's RMS where values are small).
      The `rel err` of a row shows how close it came.

      Order matters more than you might think.  A single thread adding
      2^28 values in [0, 1) into one float fails outright: once the
      running sum reaches 2^24 (16.8 million), one FP32 step is 2, and
      adding a number below 1 rounds back to the same sum.  The true total
      is 134 million; the float stops at 16.8 million.  The `cpu` rows of
      this lab keep their running sum in double for that reason (one
      double add costs a CPU no more than a float one in a chain), and
      store each output as a float.  Tree-shaped scans
      never add a small value to a huge one until the last levels, so
      their error stays near 1e-7.  Rung 4 and CUB chain the tiles' totals
      one after another, and their error grows with the length of the
      chain: a few 1e-6 at 2^28.  All pass; none is exact.

      **Why the smallest size matters.**  At 2^28 the outputs reach 1.3e8,
      and one input more or less (at most 1) is below an FP32 step there:
      no check can see it.  At **2^14+3** the outputs stay below 8200,
      and any element wrong by 0.2 or more fails.  Always check there first:
      an off-by-one (an exclusive scan, a tile total added to its own
      tile) passes at 2^28 and fails at 2^14+3.  The odd sizes also catch
      the last, partial block.
    ]],

    step "Rung 1: Kogge-Stone in a block, in levels" [[
      The first rung, `kogge_stone`, gives each thread of a 1024-thread
      block one element in shared memory and runs log2(1024) = 10 rounds:

      ```
      for (offset = 1; offset < blockDim.x; offset *= 2) {
          v = src[tid];
          if (tid >= offset) v += src[tid - offset];
          dst[tid] = v;      // two arrays take turns,
          __syncthreads();   // so no thread reads what
          swap(src, dst);    // this round has written
      }
      ```

      After round d each element holds the sum of the 2^(d+1) elements
      ending at it.  The block writes its scanned elements and its total.
      Blocks cannot see each other, so the launcher works in **levels**:
      the 262144 block totals at 2^28 are scanned by the same kernel
      (262144 → 256 → 1), then `add_offsets` adds each block's scanned
      total to the block after it.

      Two costs to keep in mind:

      - **work**: each round adds in almost every thread, so a block does
        about n log2 n additions where a loop does n;
      - **memory**: the scan pass reads the input and writes the output,
        and `add_offsets` reads and writes the output again: 16 bytes an
        element, twice what a copy moves.

      **Read the %peak of `kogge_stone`** at 2^28.  On an H100 the rung
      took 3.1 ms, 23% of the copy bandwidth.  It is far from the memory
      roof: the rounds and barriers, not the bytes, take the time.
    ]],

    step "Rung 2: the work-efficient tree (Brent-Kung)" [[
      The second rung, `brent_kung`, does the same job with about 2n
      additions instead of n log2 n, by walking a balanced tree twice
      (Blelloch's scan).  Each thread handles two elements.

      - **Up-sweep**: add pairs, then pairs of pairs, in place, until the
        last slot holds the tile's total: T - 1 additions for T elements.
      - **Down-sweep**: clear the root and walk back down; each node gives
        its left child the sum of everything to its left.  Every slot
        ends with the sum of the elements *before* it (an exclusive scan),
        and each thread adds its own element back to make it inclusive.

      In the tree, a warp's threads touch slots 2, 4, 8, ... words apart.
      Shared memory has 32 banks and word w sits in bank w % 32, so those
      strides pile onto a few banks (bank conflicts: the accesses are
      served in turns).  The rung adds one spare word after every 32
      (`PAD(i) = i + i / 32`), which spreads every stride of this tree
      over distinct banks.

      **Compare `kogge_stone` and `brent_kung`.**  On an H100: 3.1 ms to
      2.5 ms.  A fifth of the additions, but only 1.2x faster.  The
      tree has 20 rounds where Kogge-Stone had 10, each with a barrier,
      and in the narrow rounds near the root a handful of threads work
      while the rest of the block waits.  And both rungs still move 16
      bytes an element.  Work efficiency matters on big inputs and slow
      adders; here, barriers and passes over memory matter more.
    ]],

    step "Rung 3: registers, shuffles, fewer passes" [[
      The third rung, `warp_rows`, changes both costs at once.

      **Inside a block.**  A lane loads four consecutive floats with one
      16-byte load (the warp reads 512 contiguous bytes) and scans them
      in registers: three additions.  The warp then scans its 32 lane
      totals with shuffles, which read another lane's register directly:

      ```
      for (o = 1; o < 32; o *= 2) {
          u = __shfl_up_sync(0xffffffff, t, o);
          if (lane >= o) t += u;
      }
      ```

      Five steps, no shared memory, no barrier.  Each warp scans four
      such rows of 128 elements, carrying the total along; the eight
      warps' totals meet in shared memory once: **one barrier for 4096
      elements**, where rung 1 needed ten for 1024.

      **Across blocks: reduce, then scan.**  The launcher makes three
      launches: every block *sums* its tile (reading the input), one
      block scans the 65536 tile totals, then every block scans its tile
      again, starts from the total of the tiles before it, and writes.
      The input is read twice and the output written once: **12 bytes**
      an element instead of 16, and no partially written output is ever
      read back.

      **Compare `brent_kung` and `warp_rows`.**  On an H100: 2.5 ms to
      1.1 ms, 65% of the copy bandwidth.  %peak counts 8 bytes an element,
      so moving 12 at the copy's speed would score 8 / 12 = 67%: this rung
      is at the bound its passes allow.
    ]],

    step "Rung 4: one pass with decoupled look-back" [[
      To reach the copy's 8 bytes an element, the input must be read only
      once, so a tile must learn the total of all tiles before it *while
      it runs*.  The last rung, `decoupled`, chains the tiles through a
      small status array, one 64-bit word a tile, zeroed by the launcher
      before each launch:

      ```
      flag (high 32 bits)  value (low 32 bits)
      0  nothing yet
      1  AGGREGATE         this tile's own total
      2  PREFIX            tiles 0 .. this one
      ```

      A tile scans itself in registers as in rung 3 and publishes its
      AGGREGATE at once.  Then one warp **looks back**: lane j reads the
      word of tile t - 1 - j, the warp waits until none of the 32 is still
      0, and adds every AGGREGATE up to the nearest PREFIX, plus that
      PREFIX.  No PREFIX among the 32?  Add all 32 aggregates and look 32
      tiles further back.  The tile publishes its own PREFIX and writes
      its outputs.  Tiles rarely wait long: a predecessor's aggregate is
      known long before its prefix (this is what "decoupled" means).

      Two details make it correct on any GPU:

      - **Tile order by ticket.**  Each block takes its tile number from
        an atomic counter, not from `blockIdx.x`.  A block then waits
        only for tiles whose blocks started earlier and are running.  With
        `blockIdx.x`, resident blocks could spin forever on a tile whose
        block was never scheduled because they fill every SM.
      - **Flag and value in one word.**  The word is written with one
        64-bit `atomicExch` and read with one 64-bit `volatile` load (which
        goes to L2, never to a stale L1 line).  A reader sees the old word
        or the new one, never a flag without its value, so no fence is
        needed.  Kept in two separate words, they would need a
        `__threadfence()` between the writes and ordered reads.

      **Compare `decoupled` with `CUB scan`, and read its %peak.**  On an
      H100 at 2^28: 0.79 ms, 91% of the copy bandwidth, a little faster
      than CUB (0.87 ms, 82%), which uses the same idea.
    ]],

    step "Work, passes and the copy bound" [[
      The whole ladder, on an H100 at 2^28 (additions and bytes
      counted an element):

      | rung | adds | bytes | launches | time |
      |---|---|---|---|---|
      | `kogge_stone` | ~10 | 16 | 5 | 3.1 ms |
      | `brent_kung` | ~2 | 16 | 5 | 2.5 ms |
      | `warp_rows` | ~2 | 12 | 3 | 1.1 ms |
      | `decoupled` | ~2 | 8 | 1 | 0.79 ms |
      | a copy | 0 | 8 | 1 | 0.72 ms |

      (`decoupled` also clears its status words with a memset before
      its launch; "a copy" is 2 x 1 GiB at the BW of the Device pane,
      2.98 TB/s on that H100.)

      Read it column by column:

      - **Work efficiency** (O(n log n) against O(n) additions) bought
        1.2x: the GPU has arithmetic to spare, and the barriers of a tree
        cost more than its additions.
      - **Barriers and shared-memory rounds** replaced by registers and
        shuffles bought the next 2x, together with a pass saved.
      - **Passes over memory** decide the end: 16, 12, then 8 bytes.
        At 2^28 a copy of the array takes 0.72 ms, and no scan can read
        and write every element in less.  A single pass is the only way
        to get close, and `decoupled` sits within 10% of it.

      Do the same reading at **2^20+3**: the input is 4 MiB, the copy
      takes a few microseconds, and the launches themselves (five for
      rungs 1 and 2, three for rung 3) are a large part of every row.
    ]],

    step "Your turn" [[
      Your kernel is `starter.cu` and its launcher `starter.lua`, copied
      into your workspace when you opened the lab; it runs as the row
      `your kernel`.  The starter is rung 1, `kogge_stone`, run in levels
      by the launcher: correct and slow.

      **Milestones** (the quiz milestones: select them in the Milestones
      pane and press `Enter`):

      1. **correct**: your scan passes the check at **2^14+3**, where a
         single wrong element shows;
      2. **twice the work-efficient rung**: at 2^28, at least 2x faster than
         `brent_kung` (the reduce-then-scan of rung 3 gets there);
      3. **near CUB**: at 2^28, at least 0.75x CUB's speed (this takes a
         single pass, or a very good three-pass kernel);
      4. the quiz on floating-point order, and the quiz on passes.

      | key | what it does |
      |---|---|
      | `e` | edit your kernel in `$VISUAL` or `$EDITOR` |
      | save | compiles and runs your kernel |
      | `r` / `R` | run the selected row / every row |
      | `s` / `S` | next / previous size |
      | `Enter` | a row's figures, and why it failed |
      | `X` | reset to the starter (yours is backed up) |

      From a shell: `cudalab run scan --exercise --size 2^14+3`, then
      `--size 2^28`.  Five hints go from a nudge to an outline of the
      single-pass scan; `H` shows them one at a time.
    ]],
  },

  variants = {
    variant {
      id = "kogge_stone", title = "Kogge-Stone in a block",
      file = "rungs/kogge_stone.cu", launcher = "rungs/kogge_stone.lua",
      why = "One element a thread, log2(1024) rounds of shared-memory additions; the block "
         .. "totals are scanned in levels and added back: 16 bytes an element.",
    },
    variant {
      id = "brent_kung", title = "Work-efficient tree (Brent-Kung)",
      file = "rungs/brent_kung.cu", launcher = "rungs/brent_kung.lua",
      why = "Up-sweep and down-sweep: about 2n additions instead of n log n, padded against "
         .. "bank conflicts; the same passes over memory, twice the barriers.",
    },
    variant {
      id = "warp_rows", title = "Registers, shuffles, reduce then scan",
      file = "rungs/warp_rows.cu", launcher = "rungs/warp_rows.lua",
      why = "Four elements a lane via float4, warp shuffles instead of shared-memory rounds, "
         .. "one barrier a tile; reduce-then-scan reads twice, writes once: 12 bytes.",
    },
    variant {
      id = "decoupled", title = "Single pass, decoupled look-back",
      file = "rungs/decoupled.cu", launcher = "rungs/decoupled.lua",
      why = "Tiles chained through flag+value words and a warp-wide look-back, in ticket "
         .. "order: every element read once and written once, like a copy.",
    },
  },

  exercise = exercise {
    kernel = "starter.cu",
    launcher = "starter.lua",
    hints = {
      [[Count the bytes first.  The starter reads the input and writes the
        output, then add_offsets reads and writes the output again: 16
        bytes an element.  At 2^28 that alone is twice a copy.  Run
        2^14+3 after every change: it is where an off-by-one shows.]],
      [[Reduce, then scan.  Launch 1: each block sums a tile of, say,
        4096 elements and writes the sum to sums[b] (no output written).
        Launch 2: one block of 1024 threads scans sums in place (65536
        values at 2^28: loop over them in chunks, carrying a running
        total).  Launch 3: each block scans its tile again, adds
        sums[b - 1] (0 for b = 0) and writes.  12 bytes an element.]],
      [[Inside a tile, use registers and shuffles.  Let lane l of a warp
        load elements 4l .. 4l + 3 of a 128-element row as one float4,
        add them up in place (v.y += v.x; v.z += v.y; v.w += v.z), scan
        the lane totals with five __shfl_up_sync steps, and add the total
        of the lanes before it (__shfl_up_sync(t, 1), 0 for lane 0).  A
        warp can do several rows, carrying the last lane's total.  The
        warps' totals meet in shared memory after one __syncthreads().
        Guard the last, partial float4 with scalar loads.]],
      [[One pass: decoupled look-back.  Give each tile a 64-bit status
        word, (flag << 32) | __float_as_uint(value), flag 1 = the tile's
        total, 2 = the total up to and including it, 0 = nothing yet.
        Allocate an i32 buffer of 2 * tiles + 1 in the launcher (once),
        and zero it before every launch with buf:fill(0); its last int is
        a ticket counter: tile = atomicAdd(counter, 1) in thread 0, so a
        tile only ever waits for tiles that started before it.]],
      [[The look-back itself: write your total with atomicExch(&status[t],
        word); then, in warp 0, lane j reads status[t - 1 - j] with a
        volatile 64-bit load until __any_sync() says no lane sees flag 0;
        __ballot_sync() finds the nearest flag-2 lane; add the values of
        the lanes up to it (a shuffle sum); if none has flag 2, add all 32
        and move 32 tiles back.  Publish flag 2 with prefix + total, share
        the prefix through shared memory, add it to your elements, and
        compare with `decoupled` and `CUB scan` at 2^28.]],
    },
  },

  quizzes = {
    quiz {
      id = "float_order",
      question = "A CPU loop scans 2^28 floats, uniform in [0, 1), into a single float "
              .. "running sum: out[i] = s += in[i]. What does it produce?",
      choices = {
        { text = "The exact scan: every value is below 1, so nothing can overflow or round.",
          feedback = "Overflow is not the issue; rounding is. Every addition rounds to 24 "
                  .. "significant bits, and the step between neighbouring floats grows with "
                  .. "the running sum. Small values added to a large sum lose their low bits, "
                  .. "and eventually all of them." },
        { text = "The sum stops growing near 2^24 (16.8 million): from there one FP32 step is "
              .. "2, so adding a value below 1 rounds back to the same sum, and the last "
              .. "~200 million outputs stay flat.",
          correct = true,
          feedback = "Right. The true total is about 134 million. This is why GPU scans, "
                  .. "which add in trees and in tiles, are *more* accurate than the naive "
                  .. "loop, and why the check compares with a double-precision reference "
                  .. "with a tolerance instead of demanding equal bits." },
        { text = "A result within about 1e-7 of the exact one: FP32 keeps 24 bits, so the "
              .. "error of each element is one rounding.",
          feedback = "Each *addition* rounds, and a sequential scan chains 2^28 of them. The "
                  .. "errors add up, and once the sum passes 2^24 every new value is lost "
                  .. "entirely." },
        { text = "Infinity: the sum of 2^28 values exceeds what a float can hold.",
          feedback = "FP32 reaches about 3.4e38; the exact total here is about 1.3e8. Range "
                  .. "is not the problem, precision is: the gap between neighbouring floats "
                  .. "near 1.3e8 is 8." },
      },
    },
    quiz {
      id = "passes",
      question = "A scan reads the input twice and writes the output once (reduce, then "
              .. "scan). The GPU copies memory at 3 TB/s, counting bytes read and written. "
              .. "What is the least time this scan can take at 2^28 floats?",
      choices = {
        { text = "About 0.36 ms: 2^28 floats are 1.07 GB, read once.",
          feedback = "That counts one read and nothing else. The scan reads 1.07 GB twice "
                  .. "and writes 1.07 GB: 3.2 GB in all." },
        { text = "About 0.72 ms, the time of a copy: reading and writing every element once.",
          feedback = "That is the bound of a single-pass scan (8 bytes an element), like "
                  .. "rung 4. Reading the input a second time adds 4 more bytes an element." },
        { text = "About 1.07 ms: 12 bytes an element, 3.2 GB at 3 TB/s.",
          correct = true,
          feedback = "Right. Count the bytes every pass moves and divide by the bandwidth. "
                  .. "The warp_rows rung does exactly this and took 1.1 ms on an H100: it "
                  .. "is at its bound, and only removing a pass can make it faster." },
        { text = "About 1.43 ms: 16 bytes an element, because the output is written and "
              .. "then read back.",
          feedback = "That is the scan-then-add scheme of rungs 1 and 2. Reduce-then-scan "
                  .. "never reads its output back: the first pass only sums, and the second "
                  .. "writes each output once." },
      },
    },
  },

  milestones = {
    milestone {
      id = "correct",
      text = "Your scan is correct where one wrong element shows (2^14+3)",
      size = "2^14+3",
      check = checks.correct(),
    },
    milestone {
      id = "beats_tree",
      text = "Your scan is at least 2x faster than the work-efficient rung at 2^28",
      check = checks.speedup_over("brent_kung", 2, "x"),
    },
    milestone {
      id = "near_cub",
      text = "Your scan reaches 0.75x of CUB's speed at 2^28",
      check = checks.at_least("speedup_lib", 0.75, "x"),
    },
    milestone {
      id = "float_order",
      text = "Can explain why the order of FP32 additions matters",
      quiz = "float_order",
    },
    milestone {
      id = "passes",
      text = "Can bound a kernel's time by the bytes its passes move",
      quiz = "passes",
    },
  },
}
