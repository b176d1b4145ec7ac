/* Unit tests for src/worker/workerloop.c: the worker's request loop, driven
 * with a fake engine through temporary files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "worker/workerloop.h"

static struct {
    int probes, runs, shutdowns;
    int last_run;
} fake;

static void fake_probe(device_info *out)
{
    fake.probes++;
    out->present = false;
    snprintf(out->reason, sizeof out->reason, "no CUDA device found: fake engine");
}

/* Emits progress, a result and a log; a request for lab "broken" reports a
 * broken context instead. */
static bool fake_run(const run_request *req, const engine_sink *sink, run_fault *fault)
{
    fake.runs++;
    fake.last_run = req->run;
    if (strcmp(req->lab, "broken") == 0) {
        snprintf(fault->variant, sizeof fault->variant, "exercise");
        snprintf(fault->message, sizeof fault->message, "an illegal memory access was encountered");
        return false;
    }
    run_progress p;
    memset(&p, 0, sizeof p);
    snprintf(p.variant, sizeof p.variant, "%s", req->nvariants ? req->variants[0].id : "none");
    p.rep = 1;
    p.of = 3;
    snprintf(p.phase, sizeof p.phase, "timing");
    sink->progress(sink->ud, &p);
    run_result r;
    run_result_init(&r);
    snprintf(r.variant, sizeof r.variant, "%s", p.variant);
    r.status = RS_NAN;
    r.rel_err = NAN;
    r.seed = req->seed;
    sink->result(sink->ud, &r);
    sink->log(sink->ud, 1, "fake engine was here");
    return true;
}

static void fake_shutdown(void)
{
    fake.shutdowns++;
}

static const workerloop_engine fake_engine = {fake_probe, fake_run, fake_shutdown};

static char *request_line(int run, const char *lab, uint64_t seed)
{
    proto_msg m;
    memset(&m, 0, sizeof m);
    m.type = MSG_RUN;
    m.u.run.run = run;
    snprintf(m.u.run.lab, sizeof m.u.run.lab, "%s", lab);
    m.u.run.nvariants = 1;
    snprintf(m.u.run.variants[0].id, sizeof m.u.run.variants[0].id, "v%d", run);
    m.u.run.seed = seed;
    char *line = proto_encode(&m);
    assert_non_null(line);
    return line;
}

typedef struct served {
    int rc;
    int n;
    proto_msg msgs[32];
} served;

/* Feeds input to workerloop_serve and decodes everything it wrote. */
static void serve(const char *input, size_t len, served *out)
{
    FILE *in = tmpfile(), *o = tmpfile();
    assert_non_null(in);
    assert_non_null(o);
    assert_int_equal(fwrite(input, 1, len, in), len);
    fflush(in);
    rewind(in);
    memset(&fake, 0, sizeof fake);
    out->rc = workerloop_serve(&fake_engine, fileno(in), fileno(o));
    rewind(o);
    out->n = 0;
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, o) > 0) {
        cl_err e = {{0}};
        assert_true(out->n < 32);
        if (!proto_decode(line, &out->msgs[out->n], &e))
            fail_msg("worker wrote a bad line (%s): %s", e.msg, line);
        out->n++;
    }
    free(line);
    fclose(in);
    fclose(o);
}

static void test_serves_runs_then_quits(void **state)
{
    (void)state;
    char *r1 = request_line(1, "reduction", UINT64_C(18446744073709551000));
    char *r2 = request_line(2, "reduction", 7);
    char input[4096];
    snprintf(input, sizeof input, "%s\n%s{\"type\":\"quit\"}\n%s", r1, r2, r1);
    served *s = calloc(1, sizeof *s);
    serve(input, strlen(input), s);

    assert_int_equal(s->rc, 0);
    assert_int_equal(fake.probes, 1);
    assert_int_equal(fake.runs, 2);
    assert_int_equal(fake.shutdowns, 1);
    assert_int_equal(s->n, 1 + 4 + 4);
    assert_int_equal(s->msgs[0].type, MSG_HELLO);
    assert_false(s->msgs[0].u.hello.present);
    assert_string_equal(s->msgs[0].u.hello.reason, "no CUDA device found: fake engine");
    for (int run = 1; run <= 2; run++) {
        const proto_msg *m = &s->msgs[1 + 4 * (run - 1)];
        assert_int_equal(m[0].type, MSG_PROGRESS);
        assert_int_equal(m[0].u.progress.run, run);
        assert_int_equal(m[1].type, MSG_RESULT);
        assert_int_equal(m[1].u.result.run, run);
        assert_int_equal(m[1].u.result.status, RS_NAN);
        assert_true(isnan(m[1].u.result.rel_err));
        assert_int_equal(m[2].type, MSG_LOG);
        assert_string_equal(m[2].u.log.msg, "fake engine was here");
        assert_int_equal(m[3].type, MSG_DONE);
        assert_int_equal(m[3].u.done_run, run);
    }
    assert_true(s->msgs[2].u.result.seed == UINT64_C(18446744073709551000));
    free(s);
    free(r1);
    free(r2);
}

static void test_bad_requests_are_reported(void **state)
{
    (void)state;
    char *r3 = request_line(3, "reduction", 1);
    size_t big = PROTO_LINE_MAX + 5000;
    char *input = malloc(big + 4096);
    assert_non_null(input);
    size_t len = 0;
    len += (size_t)sprintf(input + len, "this is not json\n\n{\"type\":\"hello\",\"device\":{}}\n");
    memset(input + len, 'z', big);
    len += big;
    input[len++] = '\n';
    len += (size_t)sprintf(input + len, "%s", r3);   /* ends without quit: EOF */

    served *s = calloc(1, sizeof *s);
    serve(input, len, s);
    assert_int_equal(s->rc, 0);
    assert_int_equal(fake.shutdowns, 1);
    assert_int_equal(fake.runs, 1);
    assert_int_equal(fake.last_run, 3);
    assert_int_equal(s->msgs[0].type, MSG_HELLO);
    assert_int_equal(s->msgs[1].type, MSG_LOG);
    assert_int_equal(s->msgs[1].u.log.level, 2);
    assert_non_null(strstr(s->msgs[1].u.log.msg, "bad request"));
    assert_int_equal(s->msgs[2].type, MSG_LOG);
    assert_int_equal(s->msgs[2].u.log.level, 1);
    assert_int_equal(s->msgs[3].type, MSG_LOG);
    assert_non_null(strstr(s->msgs[3].u.log.msg, "longer than"));
    assert_int_equal(s->msgs[s->n - 1].type, MSG_DONE);
    assert_int_equal(s->msgs[s->n - 1].u.done_run, 3);
    free(s);
    free(input);
    free(r3);
}

static void test_broken_context_exits_3(void **state)
{
    (void)state;
    char *r1 = request_line(1, "reduction", 1);
    char *r2 = request_line(2, "broken", 1);
    char input[4096];
    snprintf(input, sizeof input, "%s%s%s", r1, r2, r1);
    served *s = calloc(1, sizeof *s);
    serve(input, strlen(input), s);
    assert_int_equal(s->rc, 3);
    assert_int_equal(fake.runs, 2);
    assert_int_equal(fake.shutdowns, 0);
    const proto_msg *last = &s->msgs[s->n - 1];
    assert_int_equal(last->type, MSG_FAULT);
    assert_int_equal(last->u.fault.run, 2);
    assert_string_equal(last->u.fault.cause, "cuda");
    assert_string_equal(last->u.fault.variant, "exercise");
    assert_string_equal(last->u.fault.message, "an illegal memory access was encountered");
    free(s);
    free(r1);
    free(r2);
}

static void test_output_gone(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe(p), 0);
    close(p[1]);
    memset(&fake, 0, sizeof fake);
    /* fd p[0] is read-only: writing the hello fails */
    int rc = workerloop_serve(&fake_engine, p[0], p[0]);
    assert_int_equal(rc, 1);
    assert_int_equal(fake.runs, 0);
    close(p[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_serves_runs_then_quits),
        cmocka_unit_test(test_bad_requests_are_reported),
        cmocka_unit_test(test_broken_context_exits_3),
        cmocka_unit_test(test_output_gone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
