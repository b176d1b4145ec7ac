#include "result/record.h"

#include <string.h>

#include "result/record_names.h"

const char *result_status_name(result_status status)
{
    if ((unsigned)status < RESULT_NSTATUS)
        return result_status_names[status];
    return "unknown";
}

const char *result_status_text(result_status status)
{
    if ((unsigned)status < RESULT_NSTATUS)
        return result_status_texts[status];
    return "unknown";
}

const char *result_row_label(const char *variant, result_kind kind)
{
    static const struct {
        const char *variant, *label;
    } libs[] = {
        {"cub", "CUB"}, {"cublas", "cuBLAS"}, {"cublas_bf16", "cuBLAS BF16"}, {"copy", "device copy"},
    };
    if (kind == RK_CPU)
        return "CPU 1 thread";
    if (kind == RK_CPU_MT)
        return "CPU threads";
    if (kind == RK_EXERCISE)
        return "your kernel";
    for (size_t i = 0; variant && i < sizeof libs / sizeof libs[0]; i++)
        if (strcmp(variant, libs[i].variant) == 0)
            return libs[i].label;
    return variant ? variant : "";
}

const char *result_kind_name(result_kind kind)
{
    if ((unsigned)kind < RESULT_NKIND)
        return result_kind_names[kind];
    return "unknown";
}

void run_result_init(run_result *result)
{
    memset(result, 0, sizeof *result);
    result->kind = RK_KERNEL;
    result->status = RS_ERROR;
    result->gbps = -1;
    result->tflops = -1;
    result->pct_peak_measured = -1;
    result->pct_peak_theory = -1;
}
