/* Unit tests for the commands' shared parts: option values (cli_args) and
 * the rows a command collects from the worker (cli_rows). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_args.h"
#include "cli/cli_rows.h"

static void test_args(void **state)
{
    (void)state;
    uint64_t u = 7;
    assert_true(cli_args_u64("42", &u) && u == 42);
    assert_false(cli_args_u64("0x10", &u));                  /* decimal only */
    assert_true(cli_args_u64("010", &u) && u == 10);
    assert_true(cli_args_u64("18446744073709551615", &u) && u == UINT64_MAX);
    u = 7;
    assert_false(cli_args_u64(NULL, &u));
    assert_false(cli_args_u64("", &u));
    assert_false(cli_args_u64("12abc", &u));
    assert_true(u == 7);                      /* untouched on failure */

    double d = 3.0;
    assert_true(cli_args_seconds("0.25", &d) && d == 0.25);
    assert_true(cli_args_seconds("2", &d) && d == 2.0);
    d = 3.0;
    assert_false(cli_args_seconds(NULL, &d));
    assert_false(cli_args_seconds("0", &d));
    assert_false(cli_args_seconds("-1", &d));
    assert_false(cli_args_seconds("nan", &d));
    assert_false(cli_args_seconds("1s", &d));
    assert_true(d == 3.0);
}

static void test_cells(void **state)
{
    (void)state;
    char b[16];
    cli_rows_fmt_rate(b, sizeof b, -1.0);
    assert_string_equal(b, "-");
    cli_rows_fmt_rate(b, sizeof b, 3.14159);
    assert_string_equal(b, "3.14");
    cli_rows_fmt_rate(b, sizeof b, 2950.4);
    assert_string_equal(b, "2950");
    cli_rows_fmt_pct(b, sizeof b, -1.0);
    assert_string_equal(b, "-");
    cli_rows_fmt_pct(b, sizeof b, 87.4);
    assert_string_equal(b, "87%");
    cli_rows_fmt_pct(b, sizeof b, 5.23);     /* the terminal UI's percent, core/units.h */
    assert_string_equal(b, "5.2%");
}

static void test_rows_and_exit_code(void **state)
{
    (void)state;
    cli_rows s;
    cli_rows_init(&s, true);
    assert_int_equal(cli_rows_exit_code(&s), EXIT_OK);     /* nothing heard yet */

    run_result r;
    run_result_init(&r);
    for (int i = 0; i < 100; i++) {
        r.status = RS_CORRECT;
        snprintf(r.variant, sizeof r.variant, "v%d", i);
        assert_true(cli_rows_add(&s, &r));
    }
    assert_int_equal(s.n, 100);
    assert_string_equal(s.v[99].variant, "v99");
    assert_int_equal(cli_rows_exit_code(&s), EXIT_OK);
    s.v[50].status = RS_WRONG;
    assert_int_equal(cli_rows_exit_code(&s), EXIT_FAIL);
    s.v[50].status = RS_CORRECT;

    device_info dev;
    memset(&dev, 0, sizeof dev);
    cli_rows_hello(&s, &dev, "unused in JSON mode");
    assert_true(cli_rows_no_device(&s));
    assert_string_equal(cli_rows_reason(&s), "no CUDA device found");
    assert_int_equal(cli_rows_exit_code(&s), EXIT_ENV);
    snprintf(dev.reason, sizeof dev.reason, "no CUDA device found: no driver");
    dev.present = true;
    cli_rows_hello(&s, &dev, "unused");
    assert_false(cli_rows_no_device(&s));

    /* a lab's row whose buffers this machine cannot hold: cannot run here
     * (3); the learner's own row that asks for too much: their code (1) */
    s.v[10].status = RS_ERROR;
    snprintf(s.v[10].message, sizeof s.v[10].message, "needs 96.0 GiB, device has 79.1 GiB free");
    assert_int_equal(cli_rows_exit_code(&s), EXIT_ENV);
    s.v[10].kind = RK_EXERCISE;
    assert_int_equal(cli_rows_exit_code(&s), EXIT_FAIL);
    s.v[10].kind = RK_KERNEL;
    s.v[10].status = RS_CORRECT;
    assert_int_equal(cli_rows_exit_code(&s), EXIT_OK);

    run_fault f;
    memset(&f, 0, sizeof f);
    snprintf(f.cause, sizeof f.cause, "timeout");
    cli_rows_fault(&s, &f);
    assert_true(s.faulted);
    assert_int_equal(cli_rows_exit_code(&s), EXIT_FAIL);
    cli_rows_free(&s);
    assert_null(s.v);
    assert_int_equal(s.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_args),
        cmocka_unit_test(test_cells),
        cmocka_unit_test(test_rows_and_exit_code),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
