-- Several GPUs: peer copies, the all-reduce three ways (naive, a ring of
-- our own, NCCL) across message sizes, how to read a collective's
-- figures, a data-parallel training step with its gradients all-reduced
-- after the backward pass or during it, and the learner's own ring
-- all-reduce, judged against NCCL.  Each row runs in one process per GPU,
-- as training frameworks do; with fewer than two GPUs, or without NCCL,
-- the rows say why they cannot run and the lesson still reads.

-- The learner's ring is correct at every size the all-reduces run at.
local SIZES = { "8 B", "64 B", "512 B", "4 KiB", "32 KiB", "256 KiB", "2 MiB", "16 MiB", "64 MiB",
                "256 MiB", "1 GiB" }
local function correct_everywhere(r)
  local mine = {}
  for _, row in ipairs(r.all) do
    if row.kind == "exercise" then mine[row.size] = row end
  end
  for _, size in ipairs(SIZES) do
    local row = mine[size]
    if row == nil or row.status == "error" or row.status == "no_device" then return nil end
    if not row.correct then
      return false, nil, "your kernel is not correct at " .. size .. " (" .. row.status .. ")"
    end
  end
  return true
end

return lab {
  id = "multigpu",
  title = "Several GPUs: links and all-reduce",
  summary = "Links between GPUs, one process a GPU, all-reduce naive, as a ring and with NCCL, from 8 B to 1 GiB; algorithm against bus bandwidth; a data-parallel training step, its gradients all-reduced in buckets during the backward pass.",
  order = 8,
  problem = "multigpu",
  -- eleven sizes of three all-reduces, each checked on the CPU, up to 1 GiB
  time_limit = 900,

  steps = {
    step "Why several GPUs, and what it costs" [[
      When a model is trained on several GPUs in the simplest way, **data
      parallelism**, every GPU holds the whole model and works on its own
      slice of the batch.  After the backward pass each GPU has gradients
      computed from different data, and before the optimiser step they must
      agree: every GPU needs the sum (or mean) of all of them.  That
      operation is an **all-reduce**, and it runs once per step, over every
      gradient of the model.

      So the new cost is not a kernel but a transfer.  A model of a billion
      parameters in FP32 has 4 GB of gradients; each step, every GPU has to
      contribute its 4 GB and receive the sum.  How fast that goes depends
      on the link between the GPUs and on how the all-reduce is organised,
      which is what this lab measures.

      Frameworks run **one process a GPU** (PyTorch's `torchrun`, MPI's
      `mpirun`): each process owns one device and its CUDA context, and the
      processes meet only through the collectives.  cudalab does the same.
      Each row is measured by one process a GPU (a *rank*), started for the
      run by a coordinator that never touches CUDA itself.  When one rank
      faults, dies or hangs, the coordinator ends every rank of the group
      and names the GPU that failed: a half-dead group would hang forever
      inside its next collective.
    ]],

    step "Peer access and links" [[
      Two GPUs in one machine talk over **PCIe** (through the CPU's root
      complex or a PCIe switch) or over **NVLink**, a direct GPU-to-GPU
      link that is much faster; large servers connect all their GPUs to
      NVLink switches.  `nvidia-smi topo -m` shows what connects each pair.

      With unified addressing every device pointer is unique in the
      process, so `cudaMemcpyPeer` (or `cudaMemcpy` with
      `cudaMemcpyDefault`) copies from one GPU's memory to another's.
      **Peer access** goes further: after
      `cudaDeviceEnablePeerAccess(peer, 0)` a kernel running on one GPU can
      load and store the other GPU's memory directly, through the link.
      `cudaDeviceCanAccessPeer` says whether the pair supports it.  Without
      it, a copy between the GPUs may be staged through host memory.

      Between processes, `cudaIpcGetMemHandle` turns an allocation into a
      64-byte handle another process can open (`cudaIpcOpenMemHandle`) to
      get a pointer to the same memory: this lab's own all-reduces read
      their neighbours' buffers that way.

      The `peer` rows copy 256 MiB from GPU 0 to GPU 1 before peer access
      is enabled, then with it, each way, and both ways at once.  Compare
      the one-way and two-way rows: a link carries traffic in each
      direction at the same time.  The CUDA runtime says whether two GPUs
      can reach each other and ranks the link, but not its nominal rate;
      the driver's management library, NVML, does (as `nvidia-smi nvlink
      -s` shows it): the rows' message gives GPU 0's active NVLinks and
      their rate, and the %peak column of the terminal lab each copy's
      share of it (both ways: of twice it).

      Measured on two H200s joined by 18 NVLinks (NVML and `nvidia-smi
      nvlink -s`: 26.6 GB/s each, 478 GB/s each way in all): 37 GB/s with
      peer access off (staged through the host), 394 GB/s one way with it
      (82% of the links' rate), 766 GB/s both ways at once (80%).
    ]],

    step "Small messages wait, large messages stream" [[
      A collective on a message of S bytes takes roughly

          t(S) = a + S / B

      where **a** is a fixed latency (launching kernels, ranks telling each
      other that data is ready, crossing the link once) and **B** the
      bandwidth the algorithm achieves.  For small S the first term wins:
      an all-reduce of 8 bytes costs about as much as one of 8 KiB, a few
      microseconds of waiting.  For large S the second term wins and the
      bandwidth approaches what the links allow.

      The all-reduce rows (`ar_naive`, `ar_ring`, `ar_nccl`) run at eleven
      sizes from 8 B to 1 GiB.  Read the
      time column from the top: nearly flat at first (**latency-bound**),
      then rising in proportion to the size (**bandwidth-bound**).  The
      bandwidth column does the opposite: tiny at first, then levelling off
      at the achievable bandwidth.  The size where it reaches half of its
      final value is where a equals S / B.  Press `b` after a run to see
      the all-reduces (yours too, once it runs) plotted against the size,
      with that point marked for each.

      For training this means that many small all-reduces, one per tensor,
      waste time on latency.  Frameworks therefore pack gradients into
      **buckets** of tens of megabytes and all-reduce each bucket at once.
    ]],

    step "Algorithm bandwidth and bus bandwidth" [[
      Two bandwidths describe a collective, as nccl-tests reports them:

      - **algbw** = S / t, the message size over the time.  It is what an
        application sees, but for an all-reduce it depends on the number
        of GPUs n, so it cannot be compared with the link's speed.
      - **busbw** = algbw x 2(n-1)/n.  An all-reduce done well sends and
        receives 2(n-1)/n x S bytes on each GPU's link: (n-1)/n x S to
        reduce and as much again to share the result.  Bus bandwidth is
        therefore what each link actually carried, per second.

      Bus bandwidth is comparable with the hardware's link speed and across
      GPU counts: if it stays near the link's speed as n grows, the
      collective scales.  With n = 2 the factor is 1 and both figures are
      equal; with 8 GPUs it is 1.75.  The all-reduce rows show busbw in the
      GB/s column and algbw in the message.

      For scale: on a machine with two H100 GPUs joined by NVLink, an
      all-reduce of 1 GiB through PyTorch (which calls NCCL) has been seen
      at about 329 GB/s of bus bandwidth.  The `ar_nccl` row at 1 GiB is
      NCCL's own figure on your machine.
    ]],

    step "Three all-reduces" [[
      **Naive**: every rank's input is copied to GPU 0, GPU 0 adds them up,
      and every rank copies the sum back.  GPU 0's link carries (n-1) x S
      in and (n-1) x S out while the other links carry S each way: the
      busiest link does n times the work it needs to, and only one GPU
      computes.

      **Ring**: put the ranks in a ring, each reading from its left
      neighbour.  Cut the buffer into n chunks.  In the **reduce-scatter**
      phase, n-1 steps, each rank adds its own part of one chunk to the
      partial sum its neighbour just made, so after n-1 steps each rank
      holds the complete sum of one chunk.  In the **all-gather** phase,
      n-1 more steps, the finished chunks travel around the ring until
      every rank has all of them.  Every link carries 2(n-1)/n x S, the
      least possible, and all links work at once.

      This lab's ring is one kernel launch a collective.  Each rank maps
      its neighbours' buffers through CUDA IPC and keeps an array of flags
      in device memory: when a thread block finishes its slice of a step,
      it stores the collective's number in its flag with release semantics
      (visible to every GPU of the system), and the same block on the
      right-hand neighbour spins on that flag with acquire loads before
      reading the slice.  Blocks wait only for their own counterpart, so
      step k of one slice overlaps step k+1 of another: the ring is
      pipelined without any barrier across the GPU.

      **NCCL**: the library does the same in principle, and far more
      carefully (next step).  The ring and naive rows show, in the "x lib"
      column, their speed against NCCL's at the same size.

      Measured on the same two H200s: NCCL reached 299 GB/s of bus
      bandwidth at 256 MiB and 325 GB/s at 1 GiB; the lab's ring 310 and
      315 GB/s (1.04x and 0.97x NCCL); the naive one 169 and 173 GB/s.
      Below 256 KiB NCCL took 8 to 9 us a call, the ring 9 to 11 and the
      naive one about 31: there the rows measure latency, not links.
    ]],

    step "Ring or tree" [[
      A ring moves the least data, but a message must pass through
      2(n-1) steps, one after another: its latency grows linearly with the
      number of GPUs.  For 8 GPUs that is 14 hops; for 1024 GPUs, thousands.

      A **tree** reduces towards a root and broadcasts back down, in about
      2 log2(n) steps: far fewer hops, but each node forwards to two
      children, so each link carries more than in a ring, and the
      bandwidth is lower.  NCCL uses a *double binary tree*, two trees in
      which every node is a leaf in one and an inner node in the other, to
      balance the links.

      So: small messages and many GPUs favour the tree (latency-bound),
      large messages on few GPUs favour the ring (bandwidth-bound).  NCCL
      picks the algorithm, and the protocol (LL and LL128 for low latency
      with flags inside the data, Simple for bulk), for every call from the
      message size and the topology it detected.
    ]],

    step "What NCCL does" [[
      NCCL (NVIDIA Collective Communications Library) is what PyTorch,
      JAX and most frameworks call for collectives between GPUs.  When a
      communicator is created it detects the topology (NVLink, PCIe
      switches, network cards), builds rings and trees over it, and splits
      the work into **channels**, several rings at once, each driven by a
      thread block, so that a few SMs keep every link busy and the rest
      stay free for computing.

      Creating a communicator takes a **unique id**: rank 0 calls
      `ncclGetUniqueId`, hands the id to every other rank by any means it
      likes, and every rank calls `ncclCommInitRank(&comm, n, id, rank)`.
      Frameworks pass it through a TCP key-value store; here the
      coordinator passes it through the ranks' pipes.  Each call, such as
      `ncclAllReduce(send, recv, count, ncclFloat32, ncclSum, comm,
      stream)`, is asynchronous on a stream like a kernel.

      On NVLink-switched machines NCCL can also reduce inside the switch
      (NVLink SHARP, "NVLS", through multicast memory).  cudalab turns it
      off (`NCCL_NVLS_ENABLE=0` in every process it starts): on shared
      machines a program using multicast can take the host's GPUs out of
      service.  The NCCL row is therefore NCCL's ring and tree.

      cudalab opens NCCL at run time: install the `nvidia-nccl-cu13`
      wheel (`pip install nvidia-nccl-cu13`) or the `libnccl2` package, or
      point `NCCL_ROOT` (or `CUDALAB_NCCL_LIB`) at it.  Without it the NCCL
      row says what is missing and the other rows still run.
    ]],

    step "A data-parallel training step" [[
      In data parallelism every GPU holds the same weights and runs the
      same training step on its own batch: the forward pass, the loss, the
      backward pass.  The backward pass leaves each GPU with weight
      gradients of its own batch; an all-reduce sums them (scaled so that
      the sum is the mean over every GPU's samples), and every GPU then
      applies the same update, so the weights stay identical everywhere.

      The backward pass produces the gradients **last layer first**: the
      last layer's weight gradient is finished while the earlier layers
      still have their matrix products to do.  The simplest step waits for
      the whole backward pass and then all-reduces everything (**serial**):
      the links sit idle while the GPU computes, then the GPU sits idle
      while the links carry every gradient.

      Frameworks overlap the two.  PyTorch's DistributedDataParallel packs
      the gradients into **buckets** (25 MiB by default) in the order the
      backward pass writes them.  As soon as a bucket's gradients are all
      written, the compute stream records a CUDA event; a second stream
      waits for that event and launches the bucket's all-reduce, while the
      compute stream goes straight on with the earlier layers.  The step
      ends when both streams are done: before the update, the compute
      stream waits for the second stream's last all-reduce.

      So the all-reduce of the last layer's gradients overlaps the matrix
      products of all the layers before it, and so on down.  What cannot
      overlap is the bucket of the first layer, written last, with nothing
      left to compute; that is why buckets start from the last layer, and
      why an overlapped step's cost in communication is about one bucket's
      all-reduce rather than all of them.

      The bucket size is a trade-off.  **Too small**: each all-reduce pays
      its fixed latency (the a in t = a + S / B), and hundreds of small
      ones add up to more than one large one.  **Too large**: the first
      bucket is ready only late in the backward pass and the last one,
      which nothing hides, is large; one bucket of everything is the
      serial step again.  Overlap is not free either: NCCL's kernels take
      a few SMs and some memory bandwidth while the matrix products run,
      so each product can slow down a little.  Here the second stream has
      the highest priority, so its small kernels are not queued behind a
      product's thread blocks.

      The three rows run a network of 4 fully connected layers of width
      4096 with ReLU between them (256 MiB of FP32 gradients), 1024
      samples a GPU, mean squared error against a target, cuBLAS SGEMM in
      FP32 for every product.  A step here ends with the summed gradients;
      the optimiser's update, a few elementwise passes, is left out:

      - `dp_1gpu`: the step on GPU 0 alone, with no all-reduce: the base.
      - `dp_serial`: on every GPU; after the backward pass, every 25 MiB
        bucket all-reduced with NCCL on the compute stream.
      - `dp_overlap`: the same buckets, each all-reduced on a second
        stream as soon as the backward pass has written it.

      The time is one step, the median of the slowest GPU.  The TFLOP/s
      column is one GPU's arithmetic (the forward products, every weight
      gradient and every activation gradient but the first layer's) over
      that time.  The message gives the samples a second of all the GPUs
      together, `dp_overlap`'s speed against `dp_serial`'s, and the **weak
      scaling efficiency**: N GPUs' samples a second over N times one
      GPU's, which with the batch a GPU fixed is the 1-GPU step time over
      the N-GPU step time.  100% would mean the all-reduce costs nothing.

      To predict the rows, read the `ar_nccl` row at 256 MiB: the serial
      step should take about the 1-GPU step plus that all-reduce, and the
      overlapped one about the 1-GPU step plus one bucket's all-reduce,
      plus whatever the sharing of SMs costs.  Each row is checked first
      on a small network (4 layers of 128, 32 samples a GPU, buckets of
      24 KiB, several of them spanning two layers): the gradients are
      poisoned before the step, and after the all-reduce every GPU's are
      compared with a forward and backward pass over every GPU's batch in
      double precision on the CPU.  At full size every gradient must be
      written, and the overlapped step's must equal the serial step's.

      Measured on two H200s joined by 18 NVLinks: 7.51 ms a step on one
      GPU (50.3 TFLOP/s), 8.68 ms serial and 8.29 ms overlapped on two, so
      overlap made the step 1.05x faster and weak scaling went from 87% to
      91%.  The serial step's extra 1.17 ms is about eleven all-reduces of
      25 MiB at some 0.1 ms each: a bucket is too small to reach the
      bandwidth of the 256 MiB row (compare `ar_nccl` at 16 and 64 MiB).
      The overlapped step still costs 0.77 ms more than one GPU's, far
      more than the last bucket's all-reduce: while NCCL runs, its kernels
      and the matrix products share the SMs and the memory, and the
      products slow down.  Larger buckets, fewer SMs for NCCL
      (`NCCL_MAX_NCHANNELS`), or a batch large enough to hide the
      communication are what frameworks tune next.

    step "Your ring all-reduce" [[
      Now write the ring yourself.  Press `e` to open your copy of
      `starter.cu`: one kernel, `ring_allreduce`, that every rank runs
      once a collective, all ranks at the same time.  When it returns,
      every rank's `recv` must hold the sum of all ranks' `send`.

      Its one argument, `const ring_args a` (from `<cudalab_ring.h>`,
      shipped with cudalab), holds:

      - `a.rank`, `a.nranks`, `a.left`, `a.right`: who this rank is and
        its neighbours in the ring;
      - `a.count`: floats in the message (any count, 2 to 2^28);
      - `a.send`, `a.recv`, `a.scratch`: this rank's input (read only),
        its output (poisoned before each check) and a buffer of the same
        size for partial sums;
      - `a.send_of[k]`, `a.recv_of[k]`, `a.scratch_of[k]`,
        `a.flags_of[k]`: every rank's buffers and flags, mapped into this
        process: load and store them like your own, through the link;
      - `a.flags`, `a.left_flags`, `a.right_flags`: 8192 words of flags
        per rank, all 0 before the first collective;
      - `a.epoch`: this collective's number, 1, 2, 3, ...

      The protocol is the one the lab's ring uses.  A block that finished
      a piece calls `__syncthreads()` and then, from one thread,
      `ring_flag_set(&a.flags[i], a.epoch)`: a system-wide fence, then a
      release store.  A block that needs that piece first calls
      `ring_flag_wait(&a.left_flags[i], a.epoch)` (acquire loads until the
      flag reaches the epoch), then `__syncthreads()`.  Epochs only grow,
      so no flag is ever reset.  Two rules keep back-to-back collectives
      apart: read a neighbour's piece only after its flag says this
      epoch, and overwrite your own scratch and recv only after your right
      neighbour, which reads them, has said it finished the previous
      epoch.

      Blocks and threads are yours to choose, in the file:
      `extern "C" __constant__ int ring_blocks` (1 up to one a
      multiprocessor of the smallest GPU, or 0 for exactly one a
      multiprocessor) and `ring_threads` (a multiple of 32, up to 1024).
      The blocks are launched cooperatively, all resident at once, so a
      block may wait for another; with 0 or more blocks than fit, the row
      says so.

      The starter is correct and slow.  It runs one block; its loads are
      4 bytes each, one after another; and at every step each block waits
      for *all* of the left neighbour's blocks to finish the step before,
      so no step overlaps another.  The row `exercise` ("your kernel")
      runs at the same eleven sizes as the other all-reduces, checked the
      same way, timed the same way, and checked once more after timing on
      fresh inputs without poison (every collective must compute its sum:
      a kernel that keeps an earlier answer is wrong), its bus bandwidth
      in the GB/s column
      and its speed against NCCL's in "x lib".  The milestones judge it at
      256 MiB against the `ar_nccl` row of the same run: half of NCCL's
      bus bandwidth, then 0.8 of it.  Without NCCL (or with one GPU) there
      is no NCCL row, and those two milestones stay pending.

      A kernel that never sets a flag its neighbour waits for would hang
      every GPU: each rank gives your kernel a time limit (10 s plus time
      for 250 MB/s of progress), and past it the run ends, naming the GPU
      that waited and where; a kernel that faults ends the run the same
      way.  `H` gives hints, one at a time.
    ]],

    step "Running the lab" [[
      The lab needs two or more GPUs in one machine; `CUDALAB_MGPU_GPUS=N`
      uses at most N of them.  With one GPU or none each row says why it
      cannot run.

      | key | what it does |
      |---|---|
      | `R` | every row: peer copies, the three all-reduces and yours at each size, then the training step |
      | `r` | the selected experiment |
      | `e` | edit your kernel in `$VISUAL` or `$EDITOR` |
      | save | compiles and runs your kernel, with NCCL beside it |
      | `H` | the next hint |
      | `Enter` | a row's figures, and why it failed |
      | `X` | reset to the starter (yours is backed up) |
      | `b` | bus bandwidth against message size, plotted |

      From the command line: `cudalab run multigpu`, or one experiment
      with `--variant ar_ring`; `cudalab run multigpu --exercise` adds
      your kernel, and `--exercise --variant exercise` runs it alone with
      the NCCL row its milestones compare with.  Every all-reduce row is checked:
      each rank fills its input from the run's seed, the output is
      poisoned before the checked collective, and every rank compares its
      output with the sum of all ranks' inputs, computed in double
      precision on the CPU.  The time is the median over samples of
      back-to-back collectives timed with CUDA events, the slowest rank's.
      The training step's rows are checked as the step above says.
    ]],
  },

  variants = {
    variant {
      id = "peer", title = "Peer copies",
      why = "cudaMemcpyPeer between GPU 0 and GPU 1 before and after enabling peer access, "
         .. "each way and both at once.",
    },
    variant {
      id = "ar_naive", title = "All-reduce: gather, sum, broadcast",
      why = "Everything through GPU 0: its link carries n-1 times what a ring's does.",
    },
    variant {
      id = "ar_ring", title = "All-reduce: a ring of our own",
      why = "Reduce-scatter then all-gather, neighbours' buffers read through CUDA IPC, "
         .. "thread blocks synchronised by flags.",
    },
    variant {
      id = "ar_nccl", title = "All-reduce: NCCL",
      why = "ncclAllReduce, the library every framework calls (NVLink multicast off).",
    },
    variant {
      id = "dp_1gpu", title = "Training step: one GPU",
      why = "A small MLP's forward and backward pass on GPU 0 alone, no all-reduce: the base "
         .. "the scaling is measured against.",
    },
    variant {
      id = "dp_serial", title = "Training step: all-reduce after backward",
      why = "Every GPU runs the step on its own batch, then all-reduces its gradients bucket by "
         .. "bucket: links idle while the GPU computes, and the other way round.",
    },
    variant {
      id = "dp_overlap", title = "Training step: buckets overlapped",
      why = "Each bucket is all-reduced on a second stream as soon as the backward pass has "
         .. "written it, while the earlier layers are still being computed.",
    },
  },

  exercise = exercise {
    kernel = "starter.cu",
    hints = {
      [[More blocks first.  Set ring_blocks to 0 (one a multiprocessor) and
        run again: the starter's loops already share each chunk among the
        blocks, and waiting for all of them is still correct.  Watch the
        large sizes in "x lib"; the small ones stay latency-bound.]],
      [[Let the blocks stop waiting for each other.  Give every block the
        same slice of every chunk on every rank: block b takes
        [off + b * slice, off + (b + 1) * slice) with slice the largest
        chunk over gridDim.x, rounded up to 4 floats.  Then block b of
        step s reads only what block b of the left neighbour wrote at
        step s - 1, so it waits for that one flag,
        a.left_flags + FLAG_STEP(s - 1, blockIdx.x), and the steps of
        different blocks overlap: the ring becomes a pipeline.  The
        "done" wait at the start shrinks the same way.]],
      [[Move 16 bytes a load.  Chunks and slices start at multiples of 4
        floats, so cast to float4 and copy n / 4 of them per slice with
        __ldcg (then the n % 4 floats left one by one): a quarter of the
        load instructions for the same bytes.]],
      [[Keep several loads in flight.  A load from the other GPU takes
        microseconds to come back; a thread that waits for each before
        issuing the next uses the link poorly.  Unroll: load four float4
        from the neighbour (i, i + blockDim.x, ...) into registers, then
        add your own input and store all four.]],
      [[Tune the launch last: compare ring_threads of 256, 512 and 1024,
        and fewer blocks than one a multiprocessor.  NCCL reaches its
        bandwidth with a few channels (blocks); find how few blocks still
        keep the link full at 256 MiB.  The lab's own ring
        (kernels/collective.cu) is one answer, to read once yours works.]],
    },
  },

  quizzes = {
    quiz {
      id = "busbw",
      question = "An all-reduce of 1 GiB takes 10 ms on 2 GPUs and 17.5 ms on 8 GPUs of the "
              .. "same kind of machine. Which is the better use of the links?",
      choices = {
        { text = "The 2-GPU run: its algorithm bandwidth, about 107 GB/s, is higher than the "
              .. "8-GPU run's 61 GB/s.",
          feedback = "Algorithm bandwidth falls with n even when every link is used fully, "
                  .. "because each GPU must move 2(n-1)/n of the message. Compare bus "
                  .. "bandwidth: 107 x 1 = 107 GB/s against 61 x 1.75 = 107 GB/s." },
        { text = "Neither: both move about 107 GB/s over each link (bus bandwidth = algbw x "
              .. "2(n-1)/n), so the collective scales from 2 to 8 GPUs.",
          correct = true,
          feedback = "Right. Bus bandwidth counts what each link carried and is comparable "
                  .. "across GPU counts and with the link's own speed." },
        { text = "The 8-GPU run: it reduces four times as many gradients in less than twice "
              .. "the time.",
          feedback = "The message is the same 1 GiB in both runs: an all-reduce sums one "
                  .. "buffer across GPUs, it does not do more work per GPU with more GPUs." },
      },
    },
    quiz {
      id = "ring_tree",
      question = "You all-reduce 4 KiB buffers across 512 GPUs. Why would NCCL pick a tree "
              .. "rather than a ring?",
      choices = {
        { text = "A 4 KiB message is latency-bound: a ring needs 2 x 511 steps one after "
              .. "another, a tree about 2 x 9, and each step costs microseconds whatever "
              .. "its size.",
          correct = true,
          feedback = "Right. The ring's advantage, the least data on each link, only pays "
                  .. "when the bytes dominate; for small messages the number of hops does." },
        { text = "A tree moves fewer bytes over each link than a ring.",
          feedback = "It is the other way round: a ring sends 2(n-1)/n of the message over "
                  .. "each link, the least possible; a tree's inner nodes forward more." },
        { text = "Rings only work with NVLink, and 512 GPUs span many machines.",
          feedback = "Rings run over any link, networks included; NCCL builds rings across "
                  .. "machines too. The choice is about latency against bandwidth." },
      },
    },
  },

  milestones = {
    milestone { id = "busbw", text = "Can say why bus bandwidth counts",
                quiz = "busbw" },
    milestone { id = "ring_tree", text = "Knows when a tree beats a ring", quiz = "ring_tree" },
    milestone { id = "ring_correct", text = "Your ring all-reduce is correct at every size",
                target = "correct at all 11 sizes", check = correct_everywhere },
    milestone { id = "ring_half", text = "Your ring at half of NCCL's bus bandwidth at 256 MiB",
                size = "256 MiB", check = checks.speedup_over("ar_nccl", 0.5) },
    milestone { id = "ring_near", text = "Your ring at 0.8 of NCCL's bus bandwidth at 256 MiB",
                size = "256 MiB", check = checks.speedup_over("ar_nccl", 0.8) },
  },
}
