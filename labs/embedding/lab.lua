-- Embedding lookup: gathering rows of a large table by token id, a purely
-- memory-bound kernel measured against a plain device copy.
return lab {
  id = "embedding",
  title = "Embedding lookup",
  summary = "Gather table rows by token id, as nn.Embedding does: a pure data-movement kernel measured against a device copy.",
  order = 3,
  problem = "embedding",
  library = "copy",
  sizes = { "4096x1024x32000", "16384x4096x32000" },
  time_limit = 120,

  steps = {
    step "What an embedding lookup does" [[
      Language models turn each input token into a vector by looking it up
      in a table: `out[t, :] = W[idx[t], :]`.  W has V rows (the vocabulary)
      of D floats each; idx holds T token ids.  Sizes here read TxDxV: at
      16384x4096x32000 the table is 500 MiB and the output 256 MiB.

      There is **no arithmetic at all**.  The kernel reads D floats from a
      row chosen by data and writes them to the output.  Its speed is set
      entirely by how well it uses memory bandwidth, so the natural baseline
      is not a CPU but a **device-to-device copy** of the same number of
      bytes: that is the "library" row in the table, and the ceiling every
      rung is measured against.

      The rows are gathered in random order, but each row itself is D
      consecutive floats (16 KiB at D = 4096).  A good kernel turns the
      random gather into long, contiguous, wide copies.
    ]],

    step "The naive kernel" [[
      The first rung launches one thread per output element, T*D threads in
      all.  Thread `i` works out which token and which column it owns with a
      division and a remainder:

      ```
      int t = i / D, d = i % D;
      out[i] = W[(size_t)idx[t] * D + d];
      ```

      Consecutive threads get consecutive `d`, so reads and writes do
      coalesce; this kernel is not a disaster.  What it wastes is
      instructions and requests: an integer division per element, a reload of
      `idx[t]` by every thread, and 4-byte accesses, so each warp request
      carries only 128 bytes.  When a kernel does nothing but move data, the
      cost of each request and the number of bytes in flight decide the
      speed.
    ]],

    step "Reading the table" [[
      - **GB/s** counts the bytes the lookup must move: D floats read and D
        floats written per token, plus the token ids.  Reads of the same row
        twice count twice, as the hardware does them.
      - **% of peak** compares with the copy bandwidth measured on this GPU,
        the same figure the copy row reaches.  A lookup cannot beat a copy of
        the same bytes; within 10-20% of it is excellent.
      - The ids are random and valid (0 <= id < V).  The check compares every
        output element with the table, and the output is poisoned before
        each run, so an element your kernel never writes is caught.

      Compare the two sizes: at D = 1024 each row is 4 KiB and per-row
      overheads matter more than at D = 4096.
    ]],

    step "One warp per row, then wide copies" [[
      **Warp per row**: give each token to one warp.  Lane `l` copies
      columns `l, l + 32, l + 64, ...` of the row.  The id is read once per
      warp instead of once per element, there is no division, and every warp
      instruction moves 128 contiguous bytes.

      **Vectorized**: rows of FP32 with D a multiple of 4 are 16-byte
      aligned, so each lane can move a `float4` per instruction: a warp
      request now carries 512 bytes.  Putting several rows in one block and
      unrolling the copy loop keeps many independent loads **in flight** per
      thread.  GPU memory has a latency of hundreds of cycles; the only way to
      reach full bandwidth is to have enough requests outstanding to cover it
      (Little's law: bytes in flight = bandwidth x latency).
    ]],

    step "Your turn" [[
      Your copy of the exercise is `starter.cu` and `starter.lua`: one thread
      per output element, like the naive rung.  Make it your own lookup
      kernel.  The first milestone asks for a correct
      kernel at the largest size; the second asks for **half of the measured
      copy bandwidth** there.  From there, aim for the
      copy row itself.

      Check yourself: does a warp's read of a row cover contiguous addresses?
      Is each id read once per row rather than once per element?  Are loads
      16 bytes wide?  Does each thread have several loads in flight before it
      needs the first result?
    ]],
  },

  variants = {
    variant {
      id = "naive", title = "One thread per element",
      kernel = "embed_naive",
      why = "T*D threads, each finding its token and column with a division and a remainder and copying one float: coalesced but instruction-heavy.",
    },
    variant {
      id = "warp_row", title = "One warp per row",
      kernel = "embed_warp_row",
      why = "A warp reads the token id once and its lanes stride across the row, so every request moves 128 contiguous bytes without any division.",
    },
    variant {
      id = "vectorized", title = "16-byte copies, several rows per block",
      kernel = "embed_vectorized",
      why = "float4 loads and stores, several rows per block and an unrolled loop keep many wide requests in flight to saturate memory.",
    },
  },

  exercise = exercise {
    kernel = "starter.cu",
    launcher = "starter.lua",
    hints = {
      [[Give a whole row to a warp: token t = global warp index, lane l copies
        columns l, l + 32, ...  Read idx[t] once per warp, not once per
        element, and drop the division.]],
      [[D is a multiple of 4 at every size in this lab, so each row starts on
        a 16-byte boundary: reinterpret the row as float4 and copy D / 4
        values with 32 lanes.]],
      [[Give each thread several float4 copies to start before the first one
        completes: unroll the copy loop (#pragma unroll 4) or let a block
        handle several rows.]],
      [[Compare with the copy row, not with the CPU: a lookup moves the same
        bytes as a device-to-device copy of the output and cannot be faster.]],
    },
  },

  quizzes = {
    quiz {
      id = "coalescing",
      question = "A warp's 32 threads each read one float. When is that read coalesced?",
      choices = {
        { text = "When consecutive threads read consecutive addresses, so the whole warp is served by a few contiguous memory transactions.",
          correct = true,
          feedback = "Right. Memory is moved in aligned segments of 32 bytes and more; when a warp's addresses fall in the same few segments, 128 bytes arrive in a handful of transactions instead of 32." },
        { text = "When each thread reads from a different row of a matrix, so the threads do not compete for the same data.",
          feedback = "That is the opposite: addresses a whole row apart land in 32 separate segments, so the hardware moves up to 32x more bytes than the warp uses." },
        { text = "When the threads read the addresses in increasing order over time, one after another.",
          feedback = "Coalescing is about the addresses a warp issues together in one instruction, not about the order of successive instructions from one thread." },
        { text = "Whenever the data is in shared memory.",
          feedback = "Shared memory has its own rule (32 banks, conflicts when threads hit the same bank). Coalescing describes how a warp's accesses to global memory combine into transactions." },
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
