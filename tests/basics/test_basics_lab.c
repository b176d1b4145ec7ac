/* The basics lab without a GPU: the occupancy experiment's kernels
 * (labs/basics/occupancy.cu) compile with NVRTC for sm_90 and ptxas tells
 * the story the experiment shows: registers rise with the values kept, and
 * the variant capped by __launch_bounds__ spills. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/paths.h"
#include "gpu/nvrtc.h"
#include "support.h"

static const nvrtc_kernel *kernel(const nvrtc_output *out, const char *name)
{
    const nvrtc_kernel *k = nvrtc_find_kernel(out, name);
    if (!k)
        fail_msg("labs/basics/occupancy.cu has no kernel %s", name);
    assert_false(k->mangled);
    assert_string_equal(k->params, "xiix");
    return k;
}

static void test_occupancy_kernels(void **state)
{
    (void)state;
    char path[CL_PATH_MAX];
    ts_home_path(path, sizeof path, "labs/basics/occupancy.cu");
    nvrtc_opts o = {.arch = "sm_90", .no_cache = true};
    nvrtc_output out;
    cl_err e = {{0}};
    if (!nvrtc_compile_opts(path, &o, &out, &e))
        fail_msg("occupancy.cu: %s", e.msg);
    static const char *const names[] = {"occ_r8", "occ_r32", "occ_r64", "occ_r128"};
    int last = 0;
    for (size_t i = 0; i < 4; i++) {
        const nvrtc_kernel *k = kernel(&out, names[i]);
        print_message("%s: %d registers, %d B spilled\n", names[i], k->registers,
                      k->spill_stores);
        assert_true(k->registers > last);
        assert_int_equal(k->spill_stores, 0);
        last = k->registers;
    }
    assert_true(kernel(&out, "occ_r128")->registers > 128);
    const nvrtc_kernel *sp = kernel(&out, "occ_spill");
    assert_true(sp->registers <= 64);
    assert_true(sp->spill_stores > 0 && sp->spill_loads > 0);
    assert_non_null(strstr(out.log, "Function properties for occ_spill"));
    nvrtc_output_free(&out);
}

static int setup(void **state)
{
    if (ts_tmp_setup(state) != 0)
        return -1;
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_occupancy_kernels),
    };
    return cmocka_run_group_tests(tests, setup, ts_tmp_teardown);
}
