-- The data pipeline: a table of taxi trips turned into a feature matrix on
-- the GPU, step by step, each step timed against a careful CPU version, and
-- the matrix handed to a linear layer without leaving the device.
local OWN_STEPS = { "fill", "filter", "transform", "standardize", "binning", "encode", "groupby" }

-- Reached when every step of the learner's pipeline is correct and at
-- least `bound` times faster than the CPU on one thread; the value shown is
-- the slowest step's speedup.  Pending while a step has not run (or could
-- not: no device, a compile error).
local function each_step_at_least(bound)
  return function(r)
    local worst
    for _, id in ipairs(OWN_STEPS) do
      local row = r.exercises["exercise." .. id]
      if row == nil or row.status == "error" then return nil end
      if not row.correct or row.speedup_cpu == nil then return false, 0 end
      if worst == nil or row.speedup_cpu < worst then worst = row.speedup_cpu end
    end
    return worst >= bound, worst
  end
end

return lab {
  id = "pipeline",
  title = "A data pipeline on the GPU",
  summary = "Fill, filter, transform, standardise, bin, encode and group a table of 16 "
         .. "million trips on the GPU, each step against the CPU, then hand the features "
         .. "to a linear layer without a copy.",
  order = 6,
  problem = "pipeline",
  sizes = { "2^20", "2^24" },
  -- the first run at 2^24 generates the data set and times the CPU pipeline
  -- on one thread; later runs read both from the cache
  time_limit = 600,

  steps = {
    step "From a table to a feature matrix" [[
      Before a model can train, its data goes through preprocessing: gaps
      filled, bad rows dropped, skewed columns tamed, numbers brought to a
      common scale, categories turned into numbers.  In Python that is a
      few lines of NumPy or pandas, and on a large table it takes seconds
      to minutes on one core.  This lab runs the same pipeline on the GPU
      and measures every step.

      The data is a table of taxi trips, generated from a seed and kept in
      your cache folder (`~/.cache/cudalab/pipeline/`) as one file of
      columns.  Sizes count rows: **2^20** (1 million, 48 MiB) and
      **2^24** (16 million, 768 MiB).  Each row has

      - eight numbers: fare, distance, duration, tip (all skewed: a few are
        huge), passengers, temperature, rating and surge, each with some
        values missing (NaN), plus refunds, GPS glitches and cancelled
        trips to throw out;
      - a timestamp (seconds since 2024-01-01, a Monday);
      - a payment type (6 kinds) and a pickup zone (10,000 of them, a few
        very busy), the small and the large categorical column;
      - a label, the number a model would learn to predict.

      The pipeline, in order:

      1. **fill** each missing value with its column's median;
      2. **filter** out refunds, glitches, cancellations and trips from
         October on (held out for testing): about 75% of the rows stay;
      3. **transform**: `log1p` of the four skewed columns, clipped to
         [0, 5]; hour and day of week from the timestamp;
      4. **standardize** the eight numbers to mean 0 and deviation 1;
      5. **binning**: the fare's 16 quantile bins (its 15 edges from the
         sorted fares) and each trip's bin;
      6. **encode**: how often each zone occurs, and payment one-hot;
      7. **groupby**: the mean label of each zone, given to each trip;
      8. **gemm**: the 19 features of every kept trip times a 19 x 16
         weight matrix, the first layer of a model.

      Before step 1 the table is **loaded** from its file, and loading is
      measured as a step of its own.
    ]],

    step "Reading the table" [[
      Press `s` until **2^24** is selected, then `R`.  The first run at a
      size generates the data set (a few seconds) and times the CPU
      pipeline on one thread, which takes a while; both are cached.

      Each step has a row on each side:

      - `cpu.fill`, `cpu.filter`, ...: the step in C on **one thread**, the
        way NumPy runs it, with the loops that matter vectorised and the
        fast algorithms (a quickselect for the median, a radix sort for the
        quantiles, arrays indexed by zone for the counts and sums);
        `cpu_mt.*` the same on all your cores;
      - `fill`, `filter`, `transform`, `standardize`, `binning`, `encode`,
        `groupby` and `gemm`: the lab's GPU version of the step;
      - `cpu` and `pipeline`: end to end, from the file on disk to the
        output of the linear layer.

      **x CPU** is the one-thread CPU time over the GPU time of the same
      step.  **rate** counts the bytes a step must read and write at least
      (a sort that passes over its data four times still counts its input
      and its output once), and for the end-to-end rows the table itself.
      Every GPU row is checked against a double-precision reference on
      every output element: exactly where the answer is exact (the median
      is one of the values, the kept rows are the kept rows, a count is a
      count), within a relative 1e-4 where floating point enters (log1p,
      means, z-scores, the layer's outputs).

      `cudalab run pipeline` prints the same rows, then a table with one
      line per step and where the time goes on each side.
    ]],

    step "Load: from disk to the device" [[
      The `load` row reads the file and puts the table on the device.  It
      cannot be faster than either of the two things it does: reading the
      bytes from the file (from the page cache when the file was read
      recently, else from the disk), and sending them over the link to the
      GPU.  Its **rate** is what your machine reached, disk (or cache) and
      link together: compare it with the pinned copy rate of the profiling
      lab's `transfers` experiment.

      A single thread that reads the file and then copies it waits for
      each in turn.  The lab's loader cuts the file into chunks of 8 MiB;
      eight threads each read a chunk into a **pinned** buffer of their own
      and queue its copy on their own stream, then read the next chunk into
      a second buffer while the first one travels.  Reading and copying
      overlap, and the copies go straight from pinned memory at the link's
      full speed.

      Loading is the one step the GPU cannot make much faster than the CPU:
      the CPU reads the same file (its `cpu.load` row), and the GPU must
      also push every byte over the link.  At 25 GB/s, about what a PCIe
      4.0 x16 link carries one way, the 805 MB of the 2^24 table take 32 ms
      whatever the kernels do; your `load` row says what your machine
      reaches.  That is why the rest
      of the pipeline must **stay on the device**: every step reads its
      inputs from device memory, at several TB/s, and writes its outputs
      there.  A pipeline that copied its table back and forth between
      steps would pay the link once per step, and lose.
    ]],

    step "Fill and filter: selection and compaction" [[
      **A median without sorting.**  The median is the value of rank
      (count - 1) / 2.  The GPU version finds it digit by digit: each
      float maps to an unsigned key that sorts the same way; a histogram
      of the top 11 bits tells which bucket holds the wanted rank; a
      second histogram, of the next 11 bits of the keys in that bucket,
      narrows it down; a third settles the last 10 bits.  Three passes
      over the column, each a **histogram in shared memory**: the block's
      threads count into a private copy with fast atomics, and only the
      non-zero buckets are added to global memory.  The CPU uses a
      quickselect, one pass-and-a-bit with unpredictable branches.

      **Keeping rows in order.**  A filter must know, for every kept row,
      how many rows before it are kept: a **prefix sum** (scan) of the
      keep flags.  `cub::DeviceSelect::If` does it in one pass: each block
      scans its tile and learns its starting offset from the blocks
      before it (a decoupled look-back).  The lab selects the *row
      numbers* to keep, then gathers all twelve columns with them, one
      kernel.  The count of kept rows stays on the device, in
      `args.count`: later kernels read it there, and only the steps that
      hand a count to a library copy it back.
    ]],

    step "Transform and standardize: bandwidth-bound steps" [[
      `log1p`, a clip, an integer division for the hour: a few operations
      per element.  These steps move bytes, and their speed is their
      **rate** against the device's copy bandwidth (the `%peak` column).
      One thread per row, neighbouring threads on neighbouring rows: every
      column is read and written by coalesced accesses, because the table
      is stored by **columns** (a structure of arrays).

      Standardising needs each column's mean and deviation first: a
      **reduction**, as in the reduction lab.  Sums of many floats lose
      digits, so the sums are kept in **double**: each block reduces its
      rows in registers and shared memory and adds its eight sums and
      eight sums of squares to global totals with one `atomicAdd` each.
      A second kernel turns the totals into means and deviations and
      writes the z-scores straight into the feature matrix.
    ]],

    step "Binning, encoding, grouping" [[
      **Quantile bins** need the sorted fares: `cub::DeviceRadixSort`
      sorts the 12 million kept fares in a few passes over a handful of
      bits each, every pass a histogram, a scan and a scatter.  Edge j is the sorted fare at (j + 1) m / 16, and a trip's
      bin is how many edges lie at or below its fare.  (Quantiles alone do
      not need a full sort: the median's digit-by-digit selection finds 15
      ranks as well.)

      **Frequency encoding** counts trips per zone: a histogram of 10,000
      buckets.  With one global counter per zone, the busiest zone (7% of
      all trips) would see millions of atomic adds on one address, one
      after another.  Privatising the histogram in **shared memory**
      spreads them over the blocks, and each block adds its counts once.

      **Group-by** computes the mean label per zone.  The general GPU
      method sorts the rows by key (`SortPairs`, zone and label together),
      then sums each run of equal keys (`cub::DeviceReduce::ReduceByKey`),
      in double.  When the keys are few and dense, as here, sums in
      shared memory work too.
    ]],

    step "The hand-off" [[
      The point of preprocessing is to feed a model.  The feature matrix
      X, one column per feature and one row per kept trip, stays in device
      memory where the steps wrote it, and the first layer of the model
      multiplies it by its weights with cuBLAS: `Y = X W`.  Nothing is
      copied: X is stored column by column, which is exactly the
      column-major matrix cuBLAS expects, so the library reads the buffers
      the steps wrote.

      In Python this is the hand-off from CuPy to PyTorch: both can wrap
      the same device memory (`torch.from_dlpack(cupy_array)`), and a
      pipeline that copies its output to the host and back into the
      framework throws away what it gained.  The `gemm` row times the
      layer on the device; the end-to-end rows include it.
    ]],

    step "Your turn" [[
      Your kernel file and launcher hold a **correct but slow** version of
      the seven steps from fill to groupby.  cudalab loads the table and
      runs the layer for you; your launcher is called once per step, with
      `args.step` naming it, and runs your kernels on the buffers in
      `args` (lua/exercise.md lists them).  Each of your steps gets a row
      (`your fill`, `your filter`, ...), checked and timed on its own from
      the lab's inputs, and your whole pipeline gets one, `your pipeline`:
      load, your seven steps, the layer, from the file on disk.

      The starter is slow in the ways a first port often is: histograms
      with every thread adding to one global counter, a median found with
      256-bucket histograms in global memory and a single thread to read
      them, a scan run by one block, statistics computed by one block per
      column, double-precision `log1p`, a wait for the GPU after every
      launch.  Profile it (the profiling lab times this same starter), fix
      the worst step first, measure again.

      **Milestones** (judged at 2^24):

      1. **Preprocessing pipeline with a measured 10x+ speedup**: the row
         `your pipeline`, end to end with the load and the layer, at least 10
         times faster than the CPU pipeline on one thread (the course's
         NumPy pipeline runs on one core; the all-cores figure stands
         beside it);
      2. **every step at least 5x**: each of your seven step rows at least
         5 times faster than its CPU step on one thread.

      | key | what it does |
      |---|---|
      | `e` | edit your kernel in `$VISUAL` or `$EDITOR` |
      | `r` / `R` | run the selected row / every row |
      | `s` / `S` | next / previous size |
      | `Enter` | a row's figures, and why it failed |
      | `X` | reset to the starter (yours is backed up) |
      | `M` / `C` | your kernels under memcheck / racecheck |
      | `H` | the next hint |
    ]],
  },

  variants = {
    variant { id = "load", title = "Load the table",
              why = "Eight threads read 8 MiB chunks into pinned buffers and copy each on "
                 .. "their own stream while reading the next." },
    variant { id = "fill", title = "Fill missing values",
              why = "Each column's median by radix selection: three shared-memory histograms "
                 .. "of 11, 11 and 10 bits." },
    variant { id = "filter", title = "Filter rows",
              why = "cub::DeviceSelect::If picks the kept row numbers; one kernel gathers the "
                 .. "twelve columns." },
    variant { id = "transform", title = "log1p, clip, hour and day",
              why = "One thread a row over the columns: coalesced reads and writes." },
    variant { id = "standardize", title = "Standardize",
              why = "Column sums in double reduced per block, one atomicAdd each, then the "
                 .. "z-scores into X." },
    variant { id = "binning", title = "Quantile bins",
              why = "cub::DeviceRadixSort of the fares, 15 edges picked, each fare's bin." },
    variant { id = "encode", title = "Zone frequency and one-hot",
              why = "A zone histogram privatised in shared memory, then the encoded columns." },
    variant { id = "groupby", title = "Mean label per zone",
              why = "SortPairs by zone, ReduceByKey of (label, 1) in double, then the target "
                 .. "encoding." },
    variant { id = "gemm", title = "Hand-off: Y = X W",
              why = "cuBLAS reads the feature matrix where the steps wrote it." },
    variant { id = "pipeline", title = "End to end",
              why = "Load, the eight steps and the layer, from the file on disk." },
  },

  exercise = exercise {
    kernel = "starter.cu",
    launcher = "starter.lua",
    hints = {
      [[Look at your step rows first: the slowest one against its CPU row
        is where to start.  At 2^24 the starter's median (fill) and its
        quantile edges (binning) take the longest: both run many tiny
        launches, a wait after each, and a single thread reading the
        histogram.]],
      [[The waits: `gpu.synchronize()` after every launch stops the CPU
        until the GPU is idle, and the next launch starts from nothing.
        Launches on one stream already run in order; synchronise only
        where the launcher must read a result, such as `args.count`.]],
      [[Histograms: give each block a copy in shared memory (`__shared__
        unsigned h[2048]`), count into it, and add only its non-zero
        buckets to the global histogram at the end.  Contention on a
        global counter is what makes the starter's histograms slow.]],
      [[Select with more bits per pass and all columns at once: with
        2048 buckets (11 bits), three passes decide a 32-bit key, and a
        grid with gridDim.y = 8 does the eight columns in one launch.
        Let a whole block find the bucket of the rank (a prefix sum over
        the buckets), not one thread.  The 15 quantile edges are 15 ranks
        of one column: gridDim.y = 15.]],
      [[The filter's scan: let every block count its kept rows, scan the
        block counts in one small block, then let each block scan its own
        tile (warp ballots, then the warps' totals) and write its rows from
        its starting offset.  Group-by over 10,000 dense zones needs no
        sort: per-block sums and counts in shared memory (80,000 bytes:
        launch with `shared = 80000`), then one atomicAdd per zone and
        block into double totals.]],
    },
  },

  quizzes = {
    quiz {
      id = "resident",
      question = "The GPU steps of this pipeline are each many times faster than the CPU, "
              .. "but loading the table is not. Why should the steps not copy the table back "
              .. "to the host between them?",
      choices = {
        { text = "Each copy crosses the link between host and GPU, tens of GB/s over PCIe, while "
              .. "the steps read device memory at several TB/s: a round trip per step would "
              .. "cost more than all the kernels.",
          correct = true,
          feedback = "Yes. Load once, keep every intermediate column in device memory, and hand "
                  .. "the result to the next consumer on the device." },
        { text = "Copies are free when the host memory is pinned.",
          feedback = "Pinned memory makes copies faster and lets them overlap with work, but "
                  .. "every byte still crosses the link at its rate." },
        { text = "The GPU cannot read host memory at all.",
          feedback = "It can. Mapped pinned (zero-copy) memory is read across the link on "
                  .. "every access, paying the link's rate element by element. Unified "
                  .. "(managed) memory moves a page to the GPU on first touch and is local "
                  .. "after that, but the first touch of each page still crosses the link, "
                  .. "and moving the pages back to the host for a CPU step crosses it again." },
      },
    },
    quiz {
      id = "end_to_end",
      question = "On the CPU a pipeline takes 2.0 s: 0.4 s to load the table, 1.6 s of steps. "
              .. "On the GPU the steps run 50x faster, and loading still takes 0.4 s. What is "
              .. "the speedup end to end?",
      choices = {
        { text = "50x: the steps are 50x faster.",
          feedback = "Only 1.6 s of the 2.0 s got faster. The GPU run is 0.4 + 1.6 / 50 = "
                  .. "0.432 s, and 2.0 / 0.432 is 4.6x: the unchanged load now dominates." },
        { text = "About 4.6x: 2.0 / (0.4 + 0.032) s. For 10x the whole run must take 0.2 s, "
              .. "so the load has to shrink below 0.17 s.",
          correct = true,
          feedback = "Right: Amdahl's law. Once the steps take 32 ms, the 400 ms load is 93% "
                  .. "of the run; faster steps buy nothing more. Read the load row first, and "
                  .. "keep the data on the device once it is there." },
        { text = "About 40x: 50x less the overhead of launching the kernels.",
          feedback = "Launch overhead is microseconds. What the GPU does not speed up is the "
                  .. "0.4 s load: 2.0 / (0.4 + 0.032) is 4.6x, however fast the steps get." },
      },
    },
  },

  milestones = {
    milestone {
      id = "pipeline10x",
      text = "Preprocessing pipeline with a measured 10x+ speedup (end to end: load, steps, "
          .. "hand-off, against the CPU pipeline on one thread)",
      check = checks.at_least("speedup_cpu", 10, "x"),
      points = 2,
    },
    milestone {
      id = "steps5x",
      text = "Every step of your pipeline at least 5x faster than the CPU on one thread",
      target = "slowest step >= 5x",
      check = each_step_at_least(5),
    },
    milestone {
      id = "resident",
      text = "Can explain why the data stays on the device",
      quiz = "resident",
    },
  },
}
