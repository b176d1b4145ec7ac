-- Embedding lookup: gathering rows of a large table by token id, a purely
-- memory-bound kernel measured against a plain device copy.
return lab {
  id = "embedding",
  title = "Embedding lookup",
  summary = "Gather table rows by token id, as nn.Embedding does: a pure data-movement "
         .. "kernel measured against a device copy.",
  order = 5,
  problem = "embedding",
  sizes = { "4096x1024x32000", "16384x4096x32000" },
  time_limit = 120,

  steps = {
    step "The first layer of every language model" [[
      A language model never sees words, only token ids.  Its first layer
      turns each id into a vector by looking it up in a table, which is
      what PyTorch's `nn.Embedding` does:

      ```
      out[t, :] = W[idx[t], :]
      ```

      W holds V rows (the vocabulary) of D floats; idx holds T token ids.
      Sizes read TxDxV.  At 16384x4096x32000 the table is 500 MiB and the
      output 256 MiB.

      The lookup is a pure **gather**: not one FLOP, only bytes moved from
      rows chosen by data to consecutive rows of the output.  Its speed is
      set entirely by how well it uses memory bandwidth, so the natural
      yardstick is not a CPU but a **device-to-device copy** of the same
      number of bytes: that is the row `device copy`, the library row of
      this lab.

      The ids are random, so rows are fetched in random order; but each
      row is D consecutive floats (16 KiB at D = 4096).  A good kernel
      turns the random gather into long, contiguous, wide copies.
    ]],

    step "Running the rungs and reading the table" [[
      Press `s` until **16384x4096x32000** is selected, then `R`: the
      three rungs run beside the device copy and the CPU.

      - **rate** counts the bytes the lookup must move: D floats read and
        D written per token, plus its id.  A row read twice counts twice,
        as the hardware reads it twice.
      - **%peak** here is the **share of the device copy**: your rate
        over the copy's rate, measured in the same run.  100% would mean
        moving the bytes as fast as the GPU copies them.  (The copy row's
        own %peak compares it with the BW line of the Device pane.)
      - **x CPU** compares with one CPU thread doing the same gather.

      The check is exact (a copy has no rounding) and covers every output
      element, and the output is filled with a marker NaN before each
      run, so an element your kernel never writes is caught.

      Compare the two sizes: at D = 1024 a row is 4 KiB, and the fixed
      work per row weighs more than at D = 4096.
    ]],

    step "Rung 1: one thread per element" [[
      The first rung, `naive`, launches one thread per output element,
      T x D threads in all.  Each works out its token and column:

      ```
      size_t t = i / D, d = i % D;
      out[i] = W[(size_t)idx[t] * D + d];
      ```

      Consecutive threads get consecutive `d`, so a warp's reads and
      writes are **coalesced**: this kernel is not a disaster.  What it
      wastes is instructions and requests:

      - a 64-bit division and remainder per element; the GPU has no
        integer divide instruction, so each is a long sequence of
        instructions;
      - every thread loads `idx[t]` again, 4096 times per token;
      - 4-byte accesses, so each warp request carries only 128 bytes.

      When a kernel only moves data, the cost of each request and the
      number of bytes in flight decide its speed.

      **Compare `naive` with `device copy`.**  On an H200 at the largest
      size: 0.30 ms against 0.13 ms, 43% of the copy.
    ]],

    step "Rung 2: one warp per row" [[
      The second rung, `warp_row`, gives each token to one warp.  Lane
      `l` copies columns `l`, `l + 32`, `l + 64`, ... of the row:

      ```
      row = idx[t];
      for (d = lane; d < D; d += 32)
          out[t * D + d] = W[row * D + d];
      ```

      The id is read once per warp instead of once per element, there is
      no division, and each warp instruction moves 128 contiguous bytes.

      **Compare `naive` and `warp_row`.**  On an H200: 0.30 ms to 0.19
      ms, 68% of the copy.  Why not 100%?  Each lane has only one 4-byte
      load in flight: `out` might overlap `W` as far as the compiler
      knows (the two pointers may **alias**), so it cannot start the next
      load before the previous store.  Declaring the pointers
      `const float *__restrict__ W` and `float *__restrict__ out` promises
      they do not overlap, which lets the compiler hoist loads ahead of
      stores and read `W` through the read-only data path (`__ldg`).
      Memory answers only after a long latency, and during it this warp
      has 128 bytes on their way: far too few to fill the pipe.
    ]],

    step "Rung 3: 16-byte copies, loads in flight" [[
      **Little's law** says how many bytes must be in flight: bandwidth
      x latency.  At 4 TB/s, every microsecond of latency needs 4 MB
      travelling at once, across the whole GPU.  The third rung,
      `vectorized`, raises the bytes in flight in two ways:

      - **wider requests.**  With D a multiple of 4, every row starts on
        a 16-byte boundary, so each thread moves a `float4` per
        instruction: a warp request carries 512 bytes.
      - **more requests at once.**  A block of 512 threads copies two
        rows, and each thread issues all its loads (two rows, two
        `float4` each) before its first store.

      Its stores are also marked as streaming: the output is written once
      and not read again here, so it need not stay in cache.

      **Compare `vectorized` and `device copy`.**  On an H200: 0.137 ms
      against 0.130 ms, 95% of the copy.
    ]],

    step "The wall: a copy of the same bytes" [[
      Why is the device copy the limit, and not the 4.8 TB/s on the H200's
      datasheet?  The lookup must read T x D floats and write T x D
      floats: exactly the traffic of copying the output buffer.  A copy
      is the simplest pattern memory can serve (long sequential reads and
      writes), and the runtime's copy is tuned for it.  The **BW** line
      of the Device pane is that copy, measured on your GPU; on an H200 it
      reached 4.1 TB/s, 86% of the datasheet figure.

      A lookup cannot move its bytes faster than that.  Repeated ids are
      the one way round it, and they are not rare.  Drawn uniformly, n
      ids over R rows hit R(1 - (1 - 1/R)^n) distinct rows on average: at
      16384 ids over 32000 rows that is about 12,820, so about 3,560 ids,
      22%, repeat one seen before (6% at 4096 ids).  Real token ids are
      far from uniform: they follow a Zipf law (a few words make up much
      of any text), and repeats are much more common.  For this kernel a
      repeat is good news: if the row is still in the L2 it is served
      from there, not from DRAM.  Here the table is far larger than the L2
      (on an H200, 500 MiB against 60 MiB) and the lab's uniform repeats
      are spread over the whole run, so most repeated rows have left the
      L2 by the time they come back, and the gain stays small; the rows
      of frequent tokens in real text do stay there.  For the backward
      pass the same repeats are bad news: it adds each token's gradient
      row into its row of the table's gradient, usually with atomics, and
      every repeat of an id is another atomic on the same D addresses.
      Frequent tokens then serialise on their rows, which is why
      libraries sort the ids and sum each id's gradients first.  A lookup
      also carries extra work: the ids, and a fresh row address every
      few kilobytes.  So:

      - 50% of the copy is a decent kernel;
      - 90% and more is excellent;
      - the last few percent are rarely worth an afternoon.

      Read **%peak** with that in mind: in this lab it is the honest
      score, and do not expect any row to reach 100%.
    ]],

    step "Your turn" [[
      Your kernel is `starter.cu` and its launcher `starter.lua`, copied
      into your workspace when you opened the lab.  The starter is the
      `naive` rung: one thread per element, with a 64-bit division.

      **Milestones:**

      1. a **working embedding kernel**: `your kernel` correct at the
         largest size you have measured;
      2. **half the copy bandwidth**: 50% or more in its %peak column,
         measured at 16384x4096x32000;
      3. the quiz on coalescing: select it in the Milestones pane and
         press `Enter`.

      | key | what it does |
      |---|---|
      | `e` | edit your kernel in `$VISUAL` or `$EDITOR` |
      | save | compiles and runs your kernel |
      | `r` / `R` | run the selected row / every row |
      | `s` / `S` | next / previous size |
      | `Enter` | a row's figures, and why it failed |
      | `X` | reset to the starter (yours is backed up) |

      Five hints go from a nudge to an outline of a solution: the cost
      of the division; a warp per row; `float4` copies; loads in flight;
      and a grid-stride version.  `H` shows them one at a time:
      read one, try it, measure, then press `H` for the next.
    ]],
  },

  variants = {
    variant {
      id = "naive", title = "One thread per element",
      kernel = "embed_naive",
      why = "T*D threads, each finding its token and column with a division and a "
         .. "remainder and copying one float: coalesced but instruction-heavy.",
    },
    variant {
      id = "warp_row", title = "One warp per row",
      kernel = "embed_warp_row",
      why = "A warp reads the token id once and its lanes stride across the row, so every "
         .. "request moves 128 contiguous bytes without any division.",
    },
    variant {
      id = "vectorized", title = "16-byte copies, two rows per block",
      kernel = "embed_vectorized",
      why = "float4 loads and stores, two rows per block, all loads issued before the "
         .. "first store: many wide requests in flight.",
    },
  },

  exercise = exercise {
    kernel = "starter.cu",
    launcher = "starter.lua",
    hints = {
      [[Count what one thread of the starter does before it copies its
        single float: a 64-bit division, a remainder, a load of idx[t].
        The copy itself is one load and one store.  The row `warp_row`
        shows what removing that overhead is worth.]],
      [[Give a whole row to a warp: t = global thread index / 32,
        lane = threadIdx.x % 32.  Read idx[t] once, then let the lane
        copy columns lane, lane + 32, ... of that row.  The launcher
        then needs T warps: grid = ceil_div(args.T * 32, BLOCK).]],
      [[D is a multiple of 4 at every size of this lab and the buffers
        start on 256-byte boundaries, so every row is 16-byte aligned:
        cast the row pointers to const float4 * and float4 * and copy
        D / 4 values per row.]],
      [[Give each thread several loads before its first store: load two
        or four float4 values into registers (from one row or from
        several rows of the block), then store them all.  A block of 256
        or 512 threads per row, or two rows per block, works well at
        D = 4096.]],
      [[A compact version: treat out as T * (D / 4) float4 values and
        walk them with a grid-stride loop; for value i the token is
        i / (D / 4) (a 64-bit division once per 16 bytes, not per 4) and
        the source is the float4 at idx[t] * (D / 4) + i % (D / 4).
        Launch a few blocks per multiprocessor: gpu.device().sms tells
        how many there are.  Then compare your %peak with `vectorized`.]],
    },
  },

  quizzes = {
    quiz {
      id = "coalescing",
      question = "The 32 threads of a warp each read one float from global memory in the "
              .. "same instruction. When is that read coalesced?",
      choices = {
        { text = "When each thread reads from a different row of a matrix, so that the "
              .. "threads do not compete for the same data.",
          feedback = "That is the worst case. Addresses a row apart fall into 32 different "
                  .. "32-byte sectors, so the memory system moves up to 1 KiB to deliver "
                  .. "128 useful bytes." },
        { text = "When one thread reads its addresses in increasing order over the "
              .. "iterations of its loop.",
          feedback = "Coalescing is about the addresses the 32 threads of a warp issue "
                  .. "together in one instruction, not about the order of one thread's "
                  .. "accesses over time." },
        { text = "Whenever the data lives in shared memory.",
          feedback = "Shared memory has its own rule: 32 banks, and a conflict when "
                  .. "threads need different words of one bank. Coalescing describes how a "
                  .. "warp's global memory accesses combine into transactions." },
        { text = "When neighbouring threads read neighbouring addresses, so the warp's 128 "
              .. "bytes fall into a few contiguous sectors.",
          correct = true,
          feedback = "Right. Memory moves in 32-byte sectors; 32 consecutive floats fill 4 "
                  .. "of them and nothing is wasted. That is why the embedding rungs keep "
                  .. "lanes on consecutive columns of a row." },
      },
    },
    quiz {
      id = "repeats",
      question = "A batch of 16,384 token ids is drawn uniformly from a table of 32,000 rows. "
              .. "About how many ids repeat one already seen in the batch?",
      choices = {
        { text = "Almost none: 16,384 ids fit in 32,000 rows without repeating.",
          feedback = "Random draws collide long before the table is full (the birthday "
                  .. "effect). The expected number of distinct rows is R(1 - (1 - 1/R)^n) = "
                  .. "32000 * (1 - e^-0.512) = about 12,820, not 16,384." },
        { text = "About 3,560, 22%: 16,384 minus the 12,820 distinct rows expected.",
          correct = true,
          feedback = "Right: (1 - 1/32000)^16384 = e^-0.512 = 0.599, so 32000 * 0.401 = "
                  .. "12,823 distinct rows. Real ids follow a Zipf law and repeat far more; "
                  .. "repeats may hit the L2, and make the backward pass's atomics collide." },
        { text = "About 8,400, 51%: the batch covers 16384 / 32000 of the table.",
          feedback = "16384 / 32000 is how much of the table the batch could cover with no "
                  .. "repeats at all. Work out the expected distinct rows, R(1 - (1 - 1/R)^n), "
                  .. "about 12,820, and subtract them from 16,384." },
      },
    },
    quiz {
      id = "backward",
      question = "The backward pass does atomicAdd(&dW[idx[t] * D + d], g[t * D + d]) for every "
              .. "token t and column d. In a batch of 16,384 real tokens, the most frequent id "
              .. "makes up 5% of them. What limits this kernel?",
      choices = {
        { text = "Nothing new: atomics cost the same as plain stores.",
          feedback = "An atomic on an address no one else touches is cheap. But 5% of 16,384 "
                  .. "is 819 tokens adding into the same D addresses, and atomics on one "
                  .. "address are done one after another." },
        { text = "The 819 tokens of that id, each adding into the same row: 819 atomics in "
              .. "turn on each of its D addresses. Sort the ids and sum each id's rows first.",
          correct = true,
          feedback = "Right. Under a Zipf law a few ids get most of the updates, and their "
                  .. "rows serialise. Grouping equal ids (sort, then one sum per id) turns "
                  .. "819 atomics an address into one write." },
        { text = "The bandwidth of reading g, as in the forward pass.",
          feedback = "With distinct ids it would be close to that. Here 819 of the tokens "
                  .. "update the same row, so their atomics queue up on the same addresses "
                  .. "and the bytes stop being the limit." },
      },
    },
  },

  milestones = {
    milestone {
      id = "correct",
      text = "Custom embedding kernel working correctly",
      check = checks.correct(),
    },
    milestone {
      id = "bandwidth",
      text = "Embedding kernel at half the measured copy bandwidth or better",
      check = checks.at_least("pct_peak", 50, "%"),
    },
    milestone {
      id = "coalescing",
      text = "Can explain memory coalescing",
      quiz = "coalescing",
    },
  },
}
