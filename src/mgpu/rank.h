/* rank.h - one process a GPU for the multigpu lab.
 *
 * `cudalab worker --rank R --ranks N` (started by the coordinator,
 * src/group/, never by hand) uses GPU R: it reads the run's request on
 * stdin, measures its part of every requested row in step with the other
 * ranks, and writes rows, progress and exchanges on fd 3
 * (proto/rankmsg.h).  `cudalab worker --probe` says what the machine offers
 * (GPUs, NCCL) and exits.  Both set NCCL_NVLS_ENABLE=0 before anything
 * else: NVLink multicast stays off. */
#ifndef CUDALAB_MGPU_RANK_H
#define CUDALAB_MGPU_RANK_H

/* The variable that narrows the GPUs the lab uses to at most its value. */
#define MG_GPUS_ENV "CUDALAB_MGPU_GPUS"

/* `worker --rank R --ranks N`: 0 after a complete run, 1 when this rank
 * failed (it told the coordinator why), 2 on bad arguments. */
int mgpu_rank_main(int argc, char **argv);
/* `worker --probe`: 0, or 1 when the coordinator is not listening. */
int mgpu_probe_main(void);

#endif
