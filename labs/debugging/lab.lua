-- Debugging kernels with the sanitizers: the four bugs that most often make
-- a kernel wrong (an access out of bounds, a missing barrier, a barrier in
-- divergent code, memory read before anything wrote it), what each looks
-- like from outside, and the compute-sanitizer tool that finds each one.
-- Four exercises, each a small kernel with one planted bug.
return lab {
  id = "debugging",
  title = "Debugging kernels with the sanitizers",
  summary = "Out of bounds, races, divergent barriers, uninitialised reads: the symptom, "
         .. "the compute-sanitizer tool that finds each, and the fix.",
  order = 2,
  problem = "reduce_sum",
  sizes = { "100003", "2^20+3" },
  time_limit = 180,

  steps = {
    step "Four bugs, four tools" [[
      A kernel that compiles and runs can still be wrong, and the way it
      is wrong rarely points at the line.  Four mistakes cause most of the
      trouble in the kernels of this course:

      - **An access out of bounds** (no `if (i < n)`, an index off by
        one).  From outside: often nothing, the answer is right;
        sometimes a wrong answer, or a fault.  Tool: **memcheck**.
      - **A missing barrier**: a thread reads shared memory before the
        thread that owns it wrote it.  From outside: a wrong answer now
        and then, different from run to run.  Tool: **racecheck**.
      - **A barrier inside a branch** only some threads take.  From
        outside: a hang on older GPUs; today usually a wrong answer, or a
        right one by luck.  Tool: **synccheck**.
      - **Memory read before anything wrote it** (bins or partial sums
        never zeroed).  From outside: right in a fresh process, wrong
        after other work left data behind.  Tool: **initcheck**.

      All four are tools of **compute-sanitizer**, which comes with the
      CUDA toolkit.  It runs your program with every memory access and
      barrier of the kernels watched, and reports each problem with the
      kernel, the source line, and the thread and block that hit it.
      Nothing is free: a kernel under a sanitizer runs many times slower,
      so it is a tool for the smallest size that shows the bug, not for
      timing.

      The common thread of the table: a right answer proves little.  Two
      of the four bugs give the right answer most of the time, and a
      third gives it whenever the memory happens to hold zeros.  When a
      kernel is new, or has just changed its indexing, its barriers or
      its buffers, run it under the tools before you trust a "correct".
    ]],

    step "Running the tools from cudalab" [[
      cudalab runs your exercise once under a tool, at the smallest of the
      exercise's sizes, checked but not timed, and lists what the tool
      found.  In the lab, with the exercise picked (`x`):

      - `M` **memcheck**: reads and writes outside any allocation,
        misaligned accesses;
      - `C` **racecheck**: two threads of a block touching one
        shared-memory word with no barrier between them;
      - `B` **synccheck**: a `__syncthreads()` that not every thread of
        the block reaches, a bad `__syncwarp` mask;
      - `I` **initcheck**: reads of global memory that nothing has
        written since it was allocated.

      From the command line:

      ```
      cudalab run debugging --exercise=oob --sanitize memcheck
      ```

      Each finding is one line: what happened, the kernel, the file and
      line, one thread and block that did it, and what it means, such as

      ```
      invalid read of 4 bytes in global memory in saxpy at starter.cu:19,
      thread (224,0,0) of block (390,0,0): Access to 0x7f13e4ac3780 is
      out of bounds; and is 128 bytes before the nearest allocation ...
      (50 reports)
      ```

      Reports of the same kind at the same line are folded into one, with
      their number.  When the kernel's own problem makes later CUDA calls
      fail (memcheck stops a kernel that made a bad access, and the next
      calls report "unspecified launch failure"), those failures are
      folded too, as consequences: fix the first finding, not the last.
      Your kernel is compiled with line information, so the line is the
      line of your file.
    ]],

    step "Out of bounds: memcheck" [[
      A grid is sized in whole blocks, so unless n is a multiple of the
      block size, the last block has threads with no element.  Without a
      bounds check they read past the end of the inputs and write past
      the end of the output.  From outside this is usually invisible: a
      cudaMalloc'd buffer sits in a larger page of device memory, the
      bytes after it are readable, and the writes land where nothing
      checks them.  The answer comes out right until the day the bytes
      after the buffer belong to another buffer, or to no page at all
      and the kernel faults with "an illegal memory access".

      memcheck reports every access that falls outside the allocations
      the program made.  Run on this lab's `oob` starter on an H200, its
      first report read (addresses vary from run to run):

      ```
      Invalid __global__ read of size 4 bytes
          at saxpy(long long, float, const float *, const float *, float *)+0x.. in starter.cu:19
          by thread (224,0,0) in block (390,0,0)
          Access to 0x7f13e4ac3780 is out of bounds
          and is 128 bytes before the nearest allocation at 0x7f13e4ac3800 of size 400,012 bytes
      ```

      Read it from the top: a 4-byte **read** of **global** memory, at
      line 19 of your file, by thread 224 of block 390.  That thread's
      element is 390 * 256 + 224 = 100064, and n is 100003: the element
      does not exist.  The last two lines say where the address fell: in
      the gap before another buffer of 100003 floats (400,012 bytes), the
      next array in memory, which is why nothing crashed.  The tool
      reports each thread that did the same (cudalab folds them into one
      finding with their number) and stops the kernel, so under memcheck
      the row shows a failed launch instead of a result.

      The fix is the check every one-element-a-thread kernel needs,
      `if (i < n)`, or a loop whose condition is `i < n`.  A read one
      element past the end shows the same way; an index computed in
      `int` that overflows past 2^31 shows as a huge or negative offset.
    ]],

    step "A missing barrier: racecheck" [[
      Shared memory is how the threads of a block talk, and a barrier is
      what makes it safe: `__syncthreads()` waits until every thread of
      the block has arrived, and everything written to shared memory
      before it is visible to every thread after it.  Leave one out and a
      thread may read a slot before the thread that owns it has written
      it.  Warps run at their own pace, so whether that happens depends
      on timing: the answer is wrong in some runs, at some sizes, on some
      GPUs, and right in others.  That is what makes a race expensive to
      find by testing.

      racecheck watches every shared-memory access of every block and
      reports pairs of accesses to one address by different threads with
      no barrier between them:

      ```
      Error: Race reported between Write access at reduce_sum+0x110 in starter.cu:22
          and Read access at reduce_sum+0x180 in starter.cu:26 [N hazards]
      ```

      A **write** at line 22 and a **read** at line 26 touched the same
      words with nothing ordering them (N times over): a read-after-write
      (RAW) hazard.
      The fix goes between the two lines: a `__syncthreads()` after the
      write, reached by every thread.  The other two kinds read the same
      way: write-after-read (WAR, a thread overwrites a slot another may
      still be reading: a barrier is missing at the end of a loop round),
      and write-after-write (WAW).  A race that gave the right answer in
      this run is still a race: racecheck reports it either way.
    ]],

    step "A barrier in divergent code: synccheck" [[
      `__syncthreads()` is only defined when every thread of the block
      reaches the same call.  Put one inside `if (i < n)` and the threads
      of the last block that fail the test never arrive.  On GPUs before
      Volta the block then waited forever: a hang.  Since Volta a barrier
      counts arriving threads, so in practice the threads that skipped it
      are counted at the next barrier they reach instead; the kernel usually
      finishes, but with the two groups one barrier apart, and whatever
      the barrier was meant to order is no longer ordered.  The result
      may be wrong, or right by luck.

      synccheck reports each thread that reached a barrier the rest of
      its block or warp did not:

      ```
      Barrier error detected. Divergent thread(s) in warp.
          at reduce_sum+0x260 in starter.cu:24
          by thread (160,0,0) in block (390,0,0)
      Barrier error detected. Divergent thread(s) in block.
          at reduce_sum+0x310 in starter.cu:30
          by thread (192,0,0) in block (390,0,0)
      ```

      "in warp" means the lanes of one warp parted at this barrier (here
      at the barrier inside the `if`, where lanes 160-162 of warp 5 had
      elements and the others did not); "in block" that whole warps
      waited at a different barrier (here the first barrier of the tree,
      where the threads past n went instead).  Both lines point at the
      same mistake.  The fix is to take the barrier out of the branch:
      let every thread do the same steps, and make the branch choose only
      the values (`partial[tid] = i < n ? in[i] : 0.0f;`).  One thing
      synccheck did not report when we tried it on an H200: threads that
      leave with `return` before a barrier.  They have exited, so the
      barrier does not wait for them; the rest of the block must then not
      read anything those threads were supposed to write.
    ]],

    step "Uninitialised memory: initcheck" [[
      `cudaMalloc` does not clear the memory it returns: it holds
      whatever was there before.  In a fresh process that is often zeros,
      so a kernel that adds into bins it never zeroed, or sums more
      partial results than it wrote, gives the right answer in a small
      test and a wrong one after other work has left data behind.
      cudalab does not leave that to luck: it poisons every output before
      it checks it, so an output element no thread writes fails at once,
      and it fills every Buffer a launcher allocates (`gpu.alloc`) with
      0xFF bytes, a NaN as a float, so a sum that reads a slot nothing
      wrote comes out NaN here.  Your own programs get no such help.

      initcheck tracks which bytes of each allocation have been written
      (by a kernel, a copy or a memset) and reports reads of the others:

      ```
      Uninitialized __global__ memory read of size 4 bytes
          at final_sum+0x50 in starter.cu:47
          by thread (49,0,0) in block (0,0,0)
          Address 0x7f8414862c44
      ```

      Thread 49 of pass 2 read a partial sum that pass 1, with its 49
      blocks, never wrote.  The fix is either to read only what was
      written (`tid < count ? partials[tid] : 0.0f`) or to clear the
      buffer before use (`b:fill(0)` in a launcher, `cudaMemset` in C).
      initcheck also reports a copy to the host of memory nothing wrote
      ("Host API memory access error ... Uninitialized access").  It does
      not look at shared memory: a shared slot read before any thread
      wrote it shows up as a race, or not at all.
    ]],

    step "Your turn" [[
      This lab has four exercises, each a small kernel with one planted
      bug; `x` picks the one that `e`, `r`, `H` and the sanitizer keys
      act on, and each lives in its own folder of your workspace,
      `debugging/<exercise>/`.

      | exercise | the kernel | tool |
      |---|---|---|
      | `oob` | a SAXPY | `M` memcheck |
      | `race` | a block sum | `C` racecheck |
      | `divergent_barrier` | a block sum | `B` synccheck |
      | `uninit` | a two-pass sum | `I` initcheck |

      For each one: run it (`r`) and note what the row says; run it under
      its tool and read the first finding: what, where, which thread;
      fix the kernel; run it again, and run the tool again until it says
      it found no problems.  Try the other tools on each bug too: each
      tool sees only its own kind of mistake, which is why there are
      four.  The milestones tick when your kernel is correct at 2^20+3,
      an odd size whose last block is nearly empty; the tool's clean
      report is the real proof.  Run as shipped on an H200, the `race`
      starter was wrong (or NaN) at both sizes, `divergent_barrier` right
      at 100003 and wrong at 2^20+3, and `oob` right at both: its stray
      threads read and write just past the ends of the arrays, where
      nothing that is checked lives, so only the tool shows that bug.
      `uninit` reads partial sums nothing wrote, which cudalab's filling
      of new Buffers turns into a NaN.

      From the command line: `cudalab run debugging --exercise=race` runs
      it, and `--sanitize racecheck` adds the tool.
    ]],
  },

  exercises = {
    exercise {
      id = "oob", title = "Out of bounds: a SAXPY without its check",
      problem = "saxpy", sizes = { "100003", "2^20+3" },
      kernel = "oob/starter.cu", launcher = "oob/starter.lua",
      hints = {
        [[A kernel that may touch memory it should not is memcheck's
          case: press `M` (or `cudalab run debugging --exercise=oob
          --sanitize memcheck`) and read the first finding: the line,
          and the thread and block.]],
        [[Work out the thread's element: block * 256 + thread.  Compare
          it with n (100003 at the size the tool ran): is it an element
          of the arrays?]],
        [[The launcher starts ceil(n / 256) blocks, so the last block has
          threads past the end.  Guard the line with `if (i < n)`, then
          run memcheck again: it should find no problems.]],
      },
    },
    exercise {
      id = "race", title = "A missing barrier: a block sum that races",
      kernel = "race/starter.cu", launcher = "race/starter.lua",
      hints = {
        [[An answer that changes from run to run in a kernel that uses
          shared memory points to a race: press `C` for racecheck and
          read which two lines it names.]],
        [[racecheck names a write and a read of the same shared words
          with no barrier between them.  Which thread writes the slot at
          the first line, and which thread reads it at the second?]],
        [[The first round of the tree reads `partial[tid + 128]`, which
          the threads of other warps write.  A `__syncthreads()` right
          after the line that fills `partial` makes every slot ready
          before any thread reads one.]],
      },
    },
    exercise {
      id = "divergent_barrier", title = "A barrier in divergent code",
      kernel = "divergent_barrier/starter.cu", launcher = "divergent_barrier/starter.lua",
      hints = {
        [[A `__syncthreads()` under an `if` is synccheck's case: press
          `B` and look at the lines it reports and the threads and block
          it names.]],
        [[The block it names is the last one, and the threads are the
          ones past n: they skipped the barrier inside the `if` and
          waited at the first barrier of the tree instead.  What did they
          also skip?]],
        [[They never wrote their slots of `partial`, so the tree adds
          whatever an earlier block left there.  Let every thread write
          its slot, `partial[tid] = i < n ? in[i] : 0.0f;`, then one
          `__syncthreads()` outside any branch.]],
      },
    },
    exercise {
      id = "uninit", title = "Uninitialised memory: a two-pass sum",
      kernel = "uninit/starter.cu", launcher = "uninit/starter.lua",
      hints = {
        [[A buffer the launcher allocates is not cleared.  Press `I` for
          initcheck and see which kernel, line and threads read memory
          nothing wrote.]],
        [[Pass 1 writes one partial a block: 49 of them at 100003, 513 at
          2^20+3.  Pass 2 runs 1024 threads, and each reads one partial.
          What do threads 49 to 1023 read?]],
        [[Read only the partials that were written: `partial[tid] = tid <
          count ? partials[tid] : 0.0f;` (the kernel already receives
          `count`).  Clearing the buffer first (`partials:fill(0)`) works
          too, but costs a pass over it every call.]],
      },
    },
  },

  quizzes = {
    quiz {
      id = "which_tool",
      question = "A block sum in shared memory gives the right answer in most runs and one "
              .. "that is far off (or NaN) in others, with the same input. Which tool do you "
              .. "run first?",
      choices = {
        { text = "racecheck: an answer that depends on timing points to threads reading "
              .. "shared memory with no barrier ordering them.",
          correct = true,
          feedback = "Right. The input is the same, so only the order in which warps ran "
                  .. "changed: a race. racecheck names the write and the read that were not "
                  .. "separated by a barrier." },
        { text = "memcheck: a wrong answer means an access out of bounds.",
          feedback = "An out-of-bounds read usually gives the same wrong (or right) answer "
                  .. "every run on the same input, because it reads the same bytes. An answer "
                  .. "that changes between runs is about timing, which memcheck does not see." },
        { text = "initcheck: the shared memory was never initialised.",
          feedback = "initcheck watches global memory only. Shared memory read before its "
                  .. "owner wrote it is a race between the two threads: racecheck's case." },
        { text = "None: floating-point sums are never exact, so differences between runs "
              .. "are expected.",
          feedback = "Rounding does change with the order of the additions, and atomic adds "
                  .. "from many blocks land in a different order each run, but that moves the "
                  .. "last digits, well within the check's tolerance. A sum that is far off, "
                  .. "or NaN, in some runs is a bug." },
      },
    },
    quiz {
      id = "read_report",
      question = "memcheck reports \"Invalid __global__ read of size 4 bytes at saxpy+0x90 in "
              .. "starter.cu:19 by thread (163,0,0) in block (390,0,0)\", with blocks of 256 "
              .. "threads and n = 100003. What went wrong?",
      choices = {
        { text = "Thread 390 * 256 + 163 = 100003 read element n, one past the last: the "
              .. "line needs a bounds check.",
          correct = true,
          feedback = "Right. The elements are 0 to 100002, so thread 100003 is the first "
                  .. "with none; it and the 92 threads after it in the last block read past "
                  .. "the end. if (i < n) keeps them out." },
        { text = "Thread 163 read element 163 of a buffer that was too small.",
          feedback = "The thread index is within its block. The element is the global index, "
                  .. "blockIdx.x * blockDim.x + threadIdx.x = 390 * 256 + 163." },
        { text = "The read was misaligned: 4 bytes at an address that is not a multiple of 4.",
          feedback = "A misaligned access is reported as such (\"Invalid __global__ read ... "
                  .. "Address ... is misaligned\"). This one is out of bounds: the report's "
                  .. "next lines say how far from the nearest allocation it fell." },
      },
    },
    quiz {
      id = "divergent",
      question = "synccheck reports \"Barrier error detected. Divergent thread(s) in block\" "
              .. "at a __syncthreads() in your kernel. What does it mean?",
      choices = {
        { text = "Some threads of the block waited at this barrier while others of the same "
              .. "block waited at a different one, or skipped it: the barrier sits in code "
              .. "that not all threads execute.",
          correct = true,
          feedback = "Right. A barrier must be reached by every thread of the block at the "
                  .. "same call. Keep barriers out of branches that depend on the thread, and "
                  .. "let the branch pick values instead." },
        { text = "The warps of the block took different sides of an if, which makes the "
              .. "kernel slow.",
          feedback = "Warps taking different sides cost nothing extra; divergence inside a "
                  .. "warp costs time. Neither is an error. The error is a barrier that only "
                  .. "some threads reach." },
        { text = "Two threads wrote the same shared-memory word between two barriers.",
          feedback = "That is a race, reported by racecheck (a WAW hazard). synccheck checks "
                  .. "the barriers themselves: who reaches them." },
      },
    },
    quiz {
      id = "uninit",
      question = "In a program of your own, a histogram kernel adds into 256 bins "
              .. "allocated with cudaMalloc and never filled. It is right when run alone "
              .. "and wrong after other work ran in the same process. Which tool shows the "
              .. "cause, and what is the fix?",
      choices = {
        { text = "initcheck, which reports the reads of bins nothing wrote; fill them with "
              .. "zeros (cudaMemset, or bins:fill(0) in a launcher) before the kernel adds "
              .. "into them.",
          correct = true,
          feedback = "Right. Fresh memory often holds zeros, which hides the bug; memory "
                  .. "reused after other work holds old data. initcheck tracks what was "
                  .. "written, so it finds the bug in the lucky run too." },
        { text = "memcheck, which reports reads of memory that was never allocated.",
          feedback = "The bins were allocated: every access is in bounds, so memcheck is "
                  .. "satisfied. What is wrong is their content, which only initcheck tracks." },
        { text = "racecheck, because two blocks add into the same bin.",
          feedback = "Atomic adds from many blocks into one bin are correct; racecheck only "
                  .. "looks at shared memory anyway. The bins start from garbage, not from "
                  .. "zero." },
      },
    },
  },

  milestones = {
    milestone {
      id = "oob_fixed", exercise = "oob", size = "2^20+3", points = 1,
      text = "Fixed: the SAXPY is correct at an odd size (memcheck finds nothing)",
      check = checks.correct(),
    },
    milestone {
      id = "race_fixed", exercise = "race", size = "2^20+3", points = 1,
      text = "Fixed: the block sum is correct at an odd size (racecheck finds nothing)",
      check = checks.correct(),
    },
    milestone {
      id = "barrier_fixed", exercise = "divergent_barrier", size = "2^20+3", points = 1,
      text = "Fixed: the barrier is out of the branch, correct at an odd size",
      check = checks.correct(),
    },
    milestone {
      id = "uninit_fixed", exercise = "uninit", size = "2^20+3", points = 1,
      text = "Fixed: the two-pass sum is correct at an odd size (initcheck finds nothing)",
      check = checks.correct(),
    },
    milestone { id = "picks_tool", text = "Can pick the tool for a symptom", quiz = "which_tool" },
    milestone { id = "reads_report", text = "Can read a memcheck report", quiz = "read_report" },
    milestone { id = "knows_barriers", text = "Knows why a barrier must not sit in a branch",
                quiz = "divergent" },
    milestone { id = "knows_uninit", text = "Knows what initcheck finds", quiz = "uninit" },
  },
}
