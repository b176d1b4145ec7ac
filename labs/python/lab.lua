-- CUDA from Python: the same SAXPY as CuPy array code, as a CuPy RawKernel
-- of CUDA C, and as a Numba @cuda.jit kernel, measured beside the CUDA C
-- rung on the same buffers, with the same judge and the same timing rules.
-- The learner writes the Numba kernel.  The Python rows need python3 with
-- CuPy and Numba's CUDA target; without them each says what to install.
return lab {
  id = "python",
  title = "CUDA from Python: CuPy and Numba",
  summary = "SAXPY three ways from Python (CuPy arrays, a CuPy RawKernel, Numba @cuda.jit) "
         .. "beside the CUDA C kernel: what each costs, and when Python's launch overhead shows.",
  order = 2,

  problem = problem {
    name = "saxpy_python",
    dims = { "n" },
    limits = { n = { 1, "2^28" } },
    args = {
      { name = "x", type = "f32", length = "n", fill = { "uniform", -1, 1 } },
      { name = "y", type = "f32", length = "n", fill = { "uniform", -1, 1 } },
      { name = "z", type = "f32", length = "n", output = { rel = 1e-5 } },
      -- a depends on n only, as in lua/problems/saxpy.lua
      { name = "a", type = "f32", value = function(s) return 0.5 + 0.25 * (s.n % 7) end },
      { name = "n", type = "i64", value = "n" },
    },
    builtin = { "saxpy", x = "x", y = "y", z = "z", a = "a", n = "n" },
    reference = "builtin",
    cpu = "builtin",
    library = "cuda_c",                            -- the bar: the CUDA C rung
    bytes = function(s) return 12 * s.n end,       -- x and y read, z written
    flops = function(s) return 2 * s.n end,        -- a multiply and an add a value
    bound = "memory",
  },
  -- 2^12: microseconds of work, where launching costs more than computing;
  -- 2^20+3: a partial last block; 2^26: 768 MiB moved, where the kernel's
  -- own time dominates.
  sizes = { "2^12", "2^20+3", "2^26" },
  time_limit = 600,

  steps = {
    step "Python rows, measured like C" [[
      The course writes GPU code in Python as often as in C, with two
      libraries:

      - **CuPy**: NumPy's arrays and functions, on the GPU, and a way to
        launch CUDA C kernels of your own (`cupy.RawKernel`).
      - **Numba**: Python functions compiled for the GPU with
        `@cuda.jit`: kernels with threads and blocks, written in Python.

      This lab runs one computation, **SAXPY** (`z[i] = a * x[i] + y[i]`
      over n floats), five ways, and measures each of them exactly like
      the kernels of the other labs:

      | row | what runs |
      |---|---|
      | `cuda_c` | a CUDA C kernel launched from Lua (the bar: `x lib`) |
      | `cupy_array` | CuPy array expressions: `cp.add(a * x, y, out=z)` |
      | `cupy_rawkernel` | the same CUDA C source, compiled and launched by CuPy |
      | `numba_jit` | a Numba `@cuda.jit` kernel |
      | your kernel | the Numba kernel you write (`starter.py`) |

      **How a Python row runs.**  cudalab allocates the buffers, fills x
      and y with fresh random values and fills z with NaN, as for every
      row.  A `python3` process then maps that device memory (CUDA IPC
      handles), copies each buffer into an array of its own, and calls
      the row's `run(args)`, where `args.x`, `args.y`, `args.z` are
      those CuPy arrays and `args.a`, `args.n` are Python numbers.  What
      the kernel wrote is copied back (with the guard bytes past the
      end, so a write out of bounds still shows), and cudalab checks z
      against a double precision reference on the CPU.  It then times
      `run(args)` with CUDA events on the default stream (warm-up first,
      the median of many repetitions; the copies are outside the timed
      part) and checks again.  A Python exception, a syntax error or a
      CUDA error in the Python process becomes that row's error, with
      the file and line.

      **What you need.**  `python3` with CuPy and Numba's CUDA target:

      ```
      pip install cupy-cuda13x 'numba-cuda[cu13]'
      ```

      (`cupy-cuda12x` and `numba-cuda[cu12]` with a CUDA 12 driver.)
      `cudalab doctor` says what it finds; set `CUDALAB_PYTHON` to use
      another python3 (a virtual environment's).  Without the packages
      the Python rows say so and the other rows run as usual.
    ]],

    step "CuPy arrays: NumPy on the GPU" [[
      CuPy mirrors NumPy: `cupy.arange`, `cupy.sum`, `x * 2 + y`,
      slicing, broadcasting.  An array lives in device memory, and every
      operation on it launches a kernel.  The `cupy_array` rung is one
      line:

      ```python
      cp.add(args.a * args.x, args.y, out=args.z)
      ```

      That line is **two kernels**.  `args.a * args.x` reads x and writes
      a new temporary array; `cp.add(..., out=z)` reads the temporary and
      y and writes z.  Count the bytes an element:

      | kernel | reads | writes |
      |---|---|---|
      | `a * x` | 4 (x) | 4 (temporary) |
      | `+ y` into z | 8 (temporary, y) | 4 (z) |

      20 bytes where one fused kernel moves 12, so at large sizes, where
      memory bandwidth decides, expect this row to take well over the
      time of the CUDA C rung.  Written the NumPy way, `z[...] = a * x +
      y`, it would be worse still: the sum goes to a second new array,
      copied into z afterwards.

      Two more things cost time in array code:

      - **Allocation.**  Each temporary is new memory.  CuPy keeps freed
        blocks in a pool and hands them out again, so after the first
        call this is cheap, but it is memory you did not plan for.
      - **Launches.**  Every operation is a launch from Python, a few
        microseconds of CPU time each.

      CuPy can fuse element-wise code into one kernel
      (`cupy.ElementwiseKernel`, `@cupy.fuse`), and when nothing built in
      fits, it runs your CUDA C: the next step.
    ]],

    step "CuPy RawKernel: your CUDA C, launched from Python" [[
      `rungs/cupy_rawkernel.py` reads `rungs/saxpy.cu`, the source of the
      CUDA C rung, and hands it to CuPy:

      ```python
      _saxpy = cp.RawKernel(source, "saxpy")      # compiled with NVRTC, once
      _saxpy((blocks,), (256,),
             (np.int64(n), np.float32(a), x, y, z))
      ```

      The kernel is the same source the `cuda_c` row runs, with the same
      grid, and it takes the same time: on an H100, 292.0 us at 2^26
      against the C rung's 293.5 (Numba's row 293.9).  They match because
      the rows run on arrays the Python process allocated itself.  A kernel reading
      memory mapped from another process through CUDA IPC ran at about
      0.55x of that bandwidth at 2^26 in earlier recorded runs (471
      against 293 us on an H100), so the rows would have timed the
      sharing, not the kernel.  The launch itself is Python code that builds
      an argument tuple and calls CuPy, instead of a Lua launcher calling
      the CUDA runtime (the next steps say when that matters).

      **Arguments must match the C types.**  CuPy passes a Python int as
      a 64-bit integer and a Python float as a `double`; the kernel
      expects `long long` and `float`.  Passing `a` as a Python float to
      a `float` parameter would hand the kernel the wrong bits, without
      any error.  Convert scalars with NumPy (`np.float32(a)`); arrays go
      in as CuPy arrays, which CuPy passes as device pointers.

      RawKernel is the answer to "when CuPy isn't enough": shared memory,
      warp shuffles, atomics, anything CUDA C can do, with the data still
      in CuPy arrays.
    ]],

    step "Numba: kernels written in Python" [[
      The `numba_jit` rung:

      ```python
      from numba import cuda

      @cuda.jit
      def saxpy(n, a, x, y, z):
          i = cuda.grid(1)          # blockIdx.x * blockDim.x + threadIdx.x
          if i < n:
              z[i] = a * x[i] + y[i]

      saxpy[blocks, 256](np.int64(n), np.float32(a), x, y, z)
      ```

      **The same as CUDA C.**  The execution model is identical: a grid
      of blocks of threads, each thread running the function once.
      `cuda.threadIdx.x`, `cuda.blockIdx.x`, `cuda.blockDim.x` are the C
      variables; `cuda.grid(1)` is the usual global index and
      `cuda.gridsize(1)` the stride of a grid-stride loop.
      `kernel[blocks, threads](...)` is `kernel<<<blocks, threads>>>(...)`.
      Shared memory (`cuda.shared.array(256, float32)`), barriers
      (`cuda.syncthreads()`) and atomics (`cuda.atomic.add`) are there
      too, and the same rules decide speed: coalesced access, enough
      blocks to fill every SM.

      **What differs.**

      - **Types come from the call.**  Numba compiles the kernel on its
        first call, for the types of the arguments it receives, and again
        for each new combination.  That first call takes a fraction of a
        second (cudalab's checked run pays it; timing comes after).  A
        Python float arrives as `float64`, so `a * x[i]` would be done in
        double precision: convert with `np.float32`.
      - **Arrays, not pointers.**  A kernel receives arrays with a shape
        (`x.shape[0]`, `x.size`), from CuPy, from PyTorch or from
        `cuda.to_device`; Numba reads any array that offers
        `__cuda_array_interface__` without copying it.
      - **No bounds checks.**  `z[i]` with i past the end writes past the
        end, as in C; a write far enough off is an illegal address that
        ends the Python process (cudalab reports it as the row's error).
      - **A subset of Python.**  Inside a kernel: numbers, arrays, loops,
        math functions; no lists, dictionaries, strings or objects.
    ]],

    step "Launch overhead: when Python costs, and when it does not" [[
      A launch from Python goes through more code than a launch from C:
      the interpreter, the library's argument handling (Numba checks the
      argument types against its compiled versions), then the CUDA
      driver.  That costs microseconds of CPU time every launch.  But a
      launch is **asynchronous**: the call returns once the work is
      queued, and the CPU goes on while the GPU runs.

      One run of this lab on an H200 (median time a run):

      | n | `cuda_c` | `cupy_rawkernel` | `numba_jit` | `cupy_array` |
      |---|---|---|---|---|
      | 2^12 | 4.0 us | 4.3 us | 4.6 us | 6.6 us |
      | 2^20+3 | 8.2 us | 8.4 us | 8.5 us | 16.9 us |
      | 2^26 | 233.6 us | 422.7 us | 421.0 us | 762.4 us |

      And one on an H100:

      | n | `cuda_c` | `cupy_rawkernel` | `numba_jit` | `cupy_array` |
      |---|---|---|---|---|
      | 2^12 | 4.2 us | 4.4 us | 4.6 us | 7.3 us |
      | 2^20+3 | 9.7 us | 9.9 us | 9.8 us | 17.2 us |
      | 2^26 | 292.9 us | 470.8 us | 458.1 us | 859.0 us |

      Even at 2^12, where the kernel is a few microseconds of work, the
      three one-kernel rows agree on both GPUs (the gap at 2^26 is the one
      the RawKernel step describes, not launch cost).  The events time what the GPU does from
      the start of a run to its end, and before each run the GPU is busy
      with the L2 flush, long enough for Python to queue the launch: the
      kernel never waits for Python.  What sets the array row apart is its
      work: two kernels where the others have one, and at 2^26 it falls
      further behind than its 20 bytes against 12 predict (0.31x and 0.34x of
      `cuda_c` where 0.6x would follow from the bytes): CuPy's generic
      element-wise kernels reached a lower bandwidth than the hand-written
      one on that GPU.

      **Where Python's cost does show** is in your own program's time,
      whenever nothing keeps the GPU busy ahead of Python:

      - a loop of many small kernels, each shorter than a launch takes
        to issue: the GPU finishes one and waits for the next;
      - a synchronisation after every launch (`.get()`, `cp.asnumpy`,
        printing a value, `cuda.synchronize()`): each launch then waits
        for the kernel before it, and the GPU for Python.

      So, in Python: launch few, large kernels; fuse small operations;
      synchronise only when the CPU needs a result; keep the data on the
      GPU between kernels.
    ]],

    step "Your exercise: a Numba SAXPY" [[
      `starter.py` holds a Numba kernel that is correct but slow: it
      launches **one block** of 256 threads that walks all of n, so one
      SM of the GPU's many does all the work.  Numba even warns that the
      grid is too small (the warning shows in the log).

      Fix it the CUDA way:

      1. one element a thread: `i = cuda.grid(1)`, with `if i < n`;
      2. enough blocks: `(n + THREADS - 1) // THREADS`.

      Keep `np.float32(args.a)` and `np.int64(args.n)` in the call: they
      keep the kernel in single precision, like the C one.

      **Milestones**: your kernel is correct at 2^20+3 (one point), and
      within 2x of the CUDA C rung at 2^26 (one point); two quizzes.

      Press `e` to open your copy, `r` to run it beside the rungs.  From
      a shell: `cudalab run python --exercise`, or
      `cudalab run python --exercise --size 2^20+3` while you work.
    ]],
  },

  variants = {
    variant {
      id = "cuda_c", title = "CUDA C, one thread an element",
      file = "rungs/saxpy.cu", launcher = "rungs/saxpy.lua",
      why = "The C kernel from a Lua launcher: 12 bytes an element, the bar of the x lib column.",
    },
    variant {
      id = "cupy_array", title = "CuPy array expression",
      python = "rungs/cupy_array.py",
      why = "cp.add(a * x, y, out=z): two kernels and a temporary, 20 bytes an element, two "
         .. "launches from Python a run.",
    },
    variant {
      id = "cupy_rawkernel", title = "CuPy RawKernel of the C source",
      python = "rungs/cupy_rawkernel.py",
      why = "The same saxpy.cu compiled by CuPy's NVRTC and launched from Python: the kernel is "
         .. "the C rung's, the launch path is Python's.",
    },
    variant {
      id = "numba_jit", title = "Numba @cuda.jit",
      python = "rungs/numba_jit.py",
      why = "SAXPY written in Python and compiled by Numba: cuda.grid(1), one element a thread, "
         .. "float32 arithmetic.",
    },
  },

  exercise = exercise {
    python = "starter.py",
    hints = {
      [[Run 2^20+3 first: the starter is correct there, only slow.  Look
        at the log: Numba warns when a grid is too small to fill the GPU.]],
      [[In the kernel, replace the loop by i = cuda.grid(1) and a bounds
        check, if i < n: z[i] = a * x[i] + y[i].  In run(), set blocks =
        (n + THREADS - 1) // THREADS.]],
      [[If your kernel is correct but not faster, check the launch: the
        first number in saxpy[blocks, THREADS] is the number of blocks.
        And keep np.float32(args.a): a Python float makes the arithmetic
        double precision.]],
    },
  },

  quizzes = {
    quiz {
      id = "launch_overhead",
      question = "On an H100 the Numba row took 4.6 us at n = 2^12 and the CUDA C rung 4.2 us, "
              .. "although a launch from Python costs the CPU more time than a launch from C. "
              .. "Why does the difference not show in these rows?",
      choices = {
        { text = "Numba's kernel is faster than the C kernel, which makes up for the slower "
              .. "launch.",
          feedback = "Both kernels do the same loads and stores: there is no faster code to "
                  .. "make up for anything, and at 2^20+3 the two rows are about 1% apart. "
                  .. "The launch cost is simply not on the GPU's clock." },
        { text = "Launches are asynchronous: while the GPU is busy (here with the L2 flush "
              .. "before each run), Python has already queued the next launch, and the events "
              .. "time only what the GPU does between them.",
          correct = true,
          feedback = "Right. The CPU's cost of a launch shows only when the GPU has to wait for "
                  .. "it: many kernels shorter than a launch, or a synchronisation after each "
                  .. "one. Launch few, large kernels from Python and synchronise rarely." },
        { text = "cudalab subtracts the launch time from the Python rows.",
          feedback = "Nothing is subtracted: the events bracket everything queued between "
                  .. "them, and any time the GPU spent waiting for Python in between would "
                  .. "count." },
        { text = "The Numba kernel is launched by cudalab's worker, in C, not by Python.",
          feedback = "It is launched by python3, in a process of its own, through Numba; "
                  .. "only the buffers are cudalab's." },
      },
    },
    quiz {
      id = "array_bytes",
      question = "cp.add(a * x, y, out=z) over float32 arrays: how many bytes of device memory "
              .. "does it move for each element?",
      choices = {
        { text = "12: x and y read, z written, as in the CUDA C kernel.",
          feedback = "That is one fused kernel. Here a * x is an operation of its own, whose "
                  .. "result is a new array in memory." },
        { text = "16: the temporary adds one write.",
          feedback = "The temporary is written once and read back once by the addition: two "
                  .. "more transfers of 4 bytes, not one." },
        { text = "20: a * x reads x and writes a temporary (8), the addition reads the "
              .. "temporary and y and writes z (12).",
          correct = true,
          feedback = "Right. Each array operation is a kernel that goes through memory. Fusing "
                  .. "them (an ElementwiseKernel, @cupy.fuse, a RawKernel or Numba) brings it "
                  .. "back to 12." },
        { text = "28: every operation also copies its result into z.",
          feedback = "That is z[...] = a * x + y, which makes a second new array and copies it "
                  .. "into z. With out=z the addition writes z directly." },
      },
    },
  },

  milestones = {
    milestone {
      id = "correct",
      text = "Your Numba SAXPY is correct with a partial last block (2^20+3)",
      size = "2^20+3",
      check = checks.correct(),
    },
    milestone {
      id = "near_c",
      text = "Your Numba SAXPY is within 2x of the CUDA C rung at 2^26",
      check = checks.speedup_over("cuda_c", 1 / 2),
    },
    milestone {
      id = "launch_overhead",
      text = "Can tell launch overhead from kernel time",
      quiz = "launch_overhead",
    },
    milestone {
      id = "array_bytes",
      text = "Can count the bytes of CuPy array code",
      quiz = "array_bytes",
    },
  },
}
