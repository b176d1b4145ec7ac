/* doctor_mgpu.h - what `cudalab doctor` says of the multigpu lab: how many
 * GPUs the machine has and whether NCCL can be loaded, asked of the ranks'
 * own probe (`cudalab worker --probe`), so that the answer is the one the
 * lab will get. */
#ifndef CUDALAB_CLI_DOCTOR_MGPU_H
#define CUDALAB_CLI_DOCTOR_MGPU_H

#include <stdbool.h>

typedef struct doctor_mgpu {
    bool asked;            /* the probe answered */
    char why[256];         /* when it did not */
    int gpus;              /* CUDA devices it sees */
    bool nccl;             /* libnccl could be loaded */
    char nccl_version[32];
    char nccl_why[512];    /* why not, and what to install */
} doctor_mgpu;

/* Runs the probe (at most 30 s) and fills out. */
void doctor_mgpu_probe(doctor_mgpu *out);

#endif
