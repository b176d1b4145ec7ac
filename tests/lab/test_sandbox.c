/* Unit tests for the Lua sandbox: limits, text-only loading, globals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/paths.h"
#include "cputime.h"
#include "lab/sandbox.h"
#include "support.h"

static char g_dir[256];

/* Writes text to <tmp>/name and returns the path (static buffer). */
static const char *write_chunk(const char *name, const char *text, size_t len)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    fclose(f);
    return path;
}

static const char *chunk(const char *name, const char *text)
{
    return write_chunk(name, text, strlen(text));
}

/* Runs text as a chunk in s; returns whether it succeeded (message in e). */
static bool run(lab_state *s, const char *text, cl_err *e)
{
    lua_State *L = sandbox_lua(s);
    int top = lua_gettop(L);
    bool ok = sandbox_dofile(s, chunk("chunk.lua", text), 0, e);
    assert_int_equal(lua_gettop(L), top);
    return ok;
}

static void assert_contains(const char *hay, const char *needle)
{
    if (!strstr(hay, needle))
        fail_msg("expected \"%s\" in \"%s\"", needle, hay);
}

static int setup(void **state)
{
    (void)state;
    return ts_tmpdir(g_dir, sizeof g_dir, "sandbox") ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return ts_rm_rf(g_dir) ? 0 : -1;
}

static void test_results_and_errors(void **state)
{
    (void)state;
    cl_err e;
    lab_state *s = sandbox_new(0, 0, &e);
    assert_non_null(s);
    lua_State *L = sandbox_lua(s);
    assert_true(sandbox_dofile(s, chunk("ret.lua", "return 6 * 7, 'x'"), 2, &e));
    assert_int_equal(lua_tointeger(L, -2), 42);
    assert_string_equal(lua_tostring(L, -1), "x");
    lua_pop(L, 2);

    const char *p = chunk("boom.lua", "local x = 1\nerror('boom')\n");
    assert_false(sandbox_dofile(s, p, 0, &e));
    char want[600];
    snprintf(want, sizeof want, "%s:2: boom", p);
    assert_string_equal(e.msg, want);
    assert_contains(sandbox_traceback(s), "stack traceback");

    p = chunk("syntax.lua", "local = 3\n");
    assert_false(sandbox_dofile(s, p, 0, &e));
    snprintf(want, sizeof want, "%s:1:", p);
    assert_true(strncmp(e.msg, want, strlen(want)) == 0);

    assert_false(sandbox_dofile(s, "/nonexistent/x.lua", 0, &e));
    assert_contains(e.msg, "cannot open /nonexistent/x.lua");
    sandbox_free(s);
}

/* Lua shortens chunk names past 60 characters; messages keep the full path. */
static void test_long_path_in_messages(void **state)
{
    (void)state;
    char dir[512];
    snprintf(dir, sizeof dir, "%s/a-rather-long-folder-name/and-another-long-folder-name", g_dir);
    cl_err e;
    assert_true(paths_mkdir_p(dir, &e));
    char path[600];
    snprintf(path, sizeof path, "%s/lab.lua", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("\n\nerror('deep')\n", f);
    fclose(f);
    lab_state *s = sandbox_new(0, 0, &e);
    assert_non_null(s);
    assert_false(sandbox_dofile(s, path, 0, &e));
    char want[700];
    snprintf(want, sizeof want, "%s:3: deep", path);
    assert_string_equal(e.msg, want);
    sandbox_free(s);
}

static void test_memory_limit(void **state)
{
    (void)state;
    cl_err e;
    lab_state *s = sandbox_new(4u << 20, 0, &e);
    assert_non_null(s);
    assert_false(run(s, "local t = {} for i = 1, 1e9 do t[i] = i end", &e));
    assert_contains(e.msg, "script exceeded its memory limit of 4 MiB");
    assert_false(run(s, "local s = 'x' while true do s = s .. s end", &e));
    assert_contains(e.msg, "script exceeded its memory limit of 4 MiB");
    assert_false(run(s, "local s = string.rep('x', 1 << 30)", &e));
    assert_contains(e.msg, "memory limit");
    /* The state recovers: garbage is collected and small scripts run. */
    assert_true(run(s, "local t = {} for i = 1, 1000 do t[i] = i end", &e));
    sandbox_free(s);
}

static void test_time_limit(void **state)
{
    (void)state;
    cl_err e;
    lab_state *s = sandbox_new(0, 100, &e);
    assert_non_null(s);
    static const char *const loops[] = {
        "while true do end",
        "while true do pcall(function() while true do end end) end",
        "local co = coroutine.wrap(function() while true do end end) co()",
        "local co = coroutine.create(function() while true do end end)\n"
        "while true do coroutine.resume(co) end",
        "while true do xpcall(function() while true do end end, function() while true do end end) end",
        "local t = setmetatable({}, {__index = function(t, k) while true do end end}) return t.x",
    };
    for (size_t i = 0; i < sizeof loops / sizeof loops[0]; i++) {
        double t0 = cpu_time_s();
        assert_false(run(s, loops[i], &e));
        double dt = cpu_time_s() - t0;
        assert_contains(e.msg, "script ran longer than 100 ms (infinite loop?)");
        assert_true(dt < 1.0);
    }
    assert_false(run(s, "\n\nwhile true do end", &e));
    assert_contains(e.msg, "chunk.lua:3: script ran longer");
    /* The budget is per call: a later short call runs normally. */
    assert_true(run(s, "local n = 0 for i = 1, 1000 do n = n + i end assert(n == 500500)", &e));
    sandbox_free(s);
}

/* (ms) -> (): sleeps, as a C function that waits on something would. */
static int wait_ms(lua_State *L)
{
    lua_Integer ms = luaL_checkinteger(L, 1);
    struct timespec t = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0)
        ;
    return 0;
}

/* The budget counts the CPU time the script uses: time spent off the CPU
 * (waiting in C, or for a busy machine) does not stop it, and a loop after
 * the wait is still stopped. */
static void test_time_limit_counts_cpu(void **state)
{
    (void)state;
    cl_err e;
    lab_state *s = sandbox_new(0, 100, &e);
    assert_non_null(s);
    lua_pushcfunction(sandbox_lua(s), wait_ms);
    assert_true(sandbox_set_global(s, "wait_ms", &e));
    double w0 = clock_now_s();
    if (!run(s, "wait_ms(150) wait_ms(150)\n"
                "local n = 0 for i = 1, 1000 do n = n + i end assert(n == 500500)", &e))
        fail_msg("%s", e.msg);
    assert_true(clock_now_s() - w0 >= 0.3);
    double t0 = cpu_time_s();
    assert_false(run(s, "wait_ms(300)\nwhile true do end", &e));
    assert_contains(e.msg, "chunk.lua:2: script ran longer than 100 ms (infinite loop?)");
    assert_true(cpu_time_s() - t0 < 1.0);
    sandbox_free(s);
}

/* Library loops that run in C, out of the count hook's reach. */
static void test_guarded_library_loops(void **state)
{
    (void)state;
    cl_err e;
    lab_state *s = sandbox_new(0, 100, &e);
    assert_non_null(s);
    double t0 = cpu_time_s();
    if (!run(s,
             "assert(string.rep('', 1e15) == '' and (''):rep(1e15, '') == '')\n"
             "assert(string.rep('ab', 3, ',') == 'ab,ab,ab')\n"
             "local t = {1, 2, 3}\n"
             "table.insert(t, 4) table.insert(t, 1, 0)\n"
             "assert(table.remove(t) == 4 and table.remove(t, 1) == 0 and #t == 3)\n"
             "local u = table.move(t, 1, 3, 2, {})\n"
             "assert(u[2] == 1 and u[4] == 3)\n"
             "local ok, msg = pcall(table.move, {}, 1, 1e15, 1)\n"
             "assert(not ok and msg:find('more than 2%^24'), msg)\n"
             "local huge = setmetatable({}, {__len = function() return 1e15 end})\n"
             "ok, msg = pcall(table.insert, huge, 1, 1)\n"
             "assert(not ok and msg:find('__len'), msg)\n"
             "ok, msg = pcall(table.remove, huge, 1)\n"
             "assert(not ok and msg:find('__len'), msg)\n"
             "ok, msg = pcall(table.move, {1}, 1, 1, 1, math)\n"
             "assert(not ok and msg:find('read%-only'), msg)\n",
             &e))
        fail_msg("%s", e.msg);
    assert_true(cpu_time_s() - t0 < 1.0);
    sandbox_free(s);
}

/* Pattern matching runs in C, out of the count hook's reach: a pattern
 * that backtracks is stopped within the budget wherever it is called from,
 * and patterns that only look expensive still give their results. */
static void test_slow_patterns(void **state)
{
    (void)state;
    cl_err e;
    lab_state *s = sandbox_new(0, 200, &e);
    assert_non_null(s);
    static const struct {
        const char *code, *expect;
    } slow[] = {
        {"local s = string.rep('a', 30)\nreturn string.find(s, '.-.-.-.-.-.-.-.-.-.-b')",
         "chunk.lua:2: string.find: the pattern takes too long on a 30-byte string"},
        {"return (string.rep('a', 26)):match('a*a*a*a*a*a*a*a*a*b')",
         "chunk.lua:1: string.match: the pattern takes too long"},
        {"for w in string.rep('x', 30):gmatch('.-.-.-.-.-.-.-.-.-y') do end",
         "chunk.lua:1: string.gmatch: the pattern takes too long"},
        {"local n = 0\nstring.rep('a', 28):gsub('.-.-.-.-.-.-.-.-.-.-c', function() n = n + 1 end)",
         "chunk.lua:2: string.gsub: the pattern takes too long"},
        {"return string.rep('a', 28):gsub('.-.-.-.-.-.-.-.-.-.-c', {})",
         "string.gsub: the pattern takes too long"},
        {"return string.rep('a', 1 << 24):find(string.rep('a', 1 << 16) .. 'b', 1, true)",
         "string.find: the call takes too long on a 16777216-byte string"},
        {"local ok = pcall(string.find, string.rep('a', 30), '.-.-.-.-.-.-.-.-.-.-b')\n"
         "while true do end",
         "chunk.lua:2: script ran longer than 200 ms"},
    };
    size_t nslow = sizeof slow / sizeof slow[0];
    for (size_t i = 0; i < nslow; i++) {
        /* the guards must fire on their own, well inside a budget that a
         * loaded machine cannot run out of first; the last case is the budget */
        sandbox_set_budget(s, i + 1 < nslow ? 600 : 200);
        double t0 = cpu_time_s(), w0 = clock_now_s();
        assert_false(run(s, slow[i].code, &e));
        double dt = cpu_time_s() - t0, dw = clock_now_s() - w0;
        assert_contains(e.msg, slow[i].expect);
        if (dt >= 1.0 || dw >= 5.0)
            fail_msg("case %zu took %.2f s of CPU, %.2f s in all", i, dt, dw);
    }
    /* Costly by the bound, quick in fact: the results are the real ones,
     * and a replacement function's effects happen once. */
    double t0 = cpu_time_s();
    if (!run(s,
             "local pad = string.rep(' ', 5000)\n"
             "local s = pad .. 'word' .. pad\n"
             "assert(s:match('^%s*(.-)%s*$') == 'word')\n"
             "local n = 0\n"
             "local out, k = (s .. s):gsub('%s*(%w+)%s*', function(w) n = n + 1 return w:upper() end)\n"
             "assert(out == 'WORDWORD' and k == 2 and n == 2, out)\n"
             "local seen = {}\n"
             "for a, b in (s .. ',x=1'):gmatch('(%w+)%s*=%s*(%w+)') do seen[#seen + 1] = a .. b end\n"
             "assert(#seen == 1 and seen[1] == 'x1')\n"
             "assert(string.find(string.rep('ab', 4000), 'ba', 1, true) == 2)\n"
             "assert(('(a(b)c)'):find('%b()') == 1)\n",
             &e))
        fail_msg("%s", e.msg);
    assert_true(cpu_time_s() - t0 < 1.0);
    sandbox_free(s);
}

static void test_text_only(void **state)
{
    (void)state;
    cl_err e;
    lab_state *s = sandbox_new(0, 0, &e);
    assert_non_null(s);
    static const char bin[] = "\x1bLua\x54\x00\x19\x93\r\n\x1a\n";
    assert_false(sandbox_dofile(s, write_chunk("bin.lua", bin, sizeof bin - 1), 0, &e));
    assert_contains(e.msg, "attempt to load a binary chunk");
    assert_true(run(s,
                    "assert(rawget(string, 'dump') == nil)\n"
                    "local f, msg = load('\\27Lua\\84\\0')\n"
                    "assert(f == nil and msg:find('binary chunk'), msg)\n"
                    "f, msg = load('return 1', 'c', 'b')\n"
                    "assert(f == nil and msg:find('text chunks'), msg)\n"
                    "f = load('return 1 + 1')\n"
                    "assert(f() == 2)\n"
                    "local env = { y = 5 }\n"
                    "assert(load('return y', 'c', 't', env)() == 5)\n"
                    "assert(not pcall(load('return io')))\n",
                    &e));
    sandbox_free(s);
}

static void test_globals(void **state)
{
    (void)state;
    cl_err e;
    lab_state *s = sandbox_new(0, 0, &e);
    assert_non_null(s);
    if (!run(s,
             "for _, n in ipairs({'io', 'debug', 'package', 'require', 'dofile', 'loadfile'}) do\n"
             "  local ok, msg = pcall(function() return _ENV[n] end)\n"
             "  assert(not ok and msg:find(\"'\" .. n .. \"' is not available in lab files \"\n"
             "                             .. '%(the sandbox allows: '), msg)\n"
             "end\n"
             "for _, n in ipairs({'warn', '_G', 'no_such_global', '', 'req', 'io2'}) do\n"
             "  assert(_ENV[n] == nil, n)\n"
             "end\n"
             "assert(os[''] == nil and _ENV[1] == nil)\n"
             "for _, n in ipairs({'execute', 'exit', 'getenv', 'remove'}) do\n"
             "  local ok, msg = pcall(function() return os[n] end)\n"
             "  assert(not ok and msg:find('os.' .. n .. ' is not available', 1, true), msg)\n"
             "end\n"
             "assert(not pcall(function() return string.dump end))\n"
             "assert(string.no_such_field == nil)\n"
             "assert(type(os.time()) == 'number' and type(os.clock()) == 'number')\n"
             "assert(string.format('%d', 3) == '3' and ('ab'):upper() == 'AB')\n"
             "assert(math.floor(2.5) == 2 and utf8.char(65) == 'A')\n"
             "assert(table.concat({1, 2}, ',') == '1,2')\n"
             "assert(coroutine.wrap(function() coroutine.yield(1) end)() == 1)\n"
             "assert(getmetatable('') == 'locked')\n"
             "assert(getmetatable(_ENV) == 'locked')\n"
             "assert(not pcall(rawset, string, 'rep', nil))\n"
             "assert(not pcall(function() string.rep = nil end))\n"
             "assert(not pcall(setmetatable, string, {}))\n"
             "assert(not pcall(table.insert, math, 1))\n"
             "local n = 0 for k in pairs(string) do n = n + 1 end assert(n > 10)\n"
             "assert(collectgarbage('count') > 0)\n"
             "assert(not pcall(collectgarbage, 'stop'))\n"
             "assert(not pcall(setmetatable, {}, {__gc = print}))\n"
             "assert(setmetatable({}, {__index = {z = 1}}).z == 1)\n"
             "shared_name = 1\n",
             &e))
        fail_msg("%s", e.msg);
    /* Each chunk has its own _ENV. */
    assert_true(run(s, "assert(shared_name == nil)", &e));
    sandbox_free(s);
}

static void test_print_output(void **state)
{
    (void)state;
    cl_err e;
    lab_state *s = sandbox_new(0, 0, &e);
    assert_non_null(s);
    assert_true(run(s, "print('a', 1, nil, true)", &e));
    assert_string_equal(sandbox_output(s), "a\t1\tnil\ttrue\n");
    sandbox_clear_output(s);
    assert_string_equal(sandbox_output(s), "");
    assert_true(run(s, "for i = 1, 10000 do print(string.rep('z', 50)) end", &e));
    size_t len = strlen(sandbox_output(s));
    assert_true(len <= SANDBOX_OUTPUT_MAX + 32);
    assert_contains(sandbox_output(s), "[output truncated]");
    sandbox_free(s);
}

static int c_twice(lua_State *L)
{
    lua_pushinteger(L, 2 * luaL_checkinteger(L, 1));
    return 1;
}

static void test_globals_from_c(void **state)
{
    (void)state;
    cl_err e;
    lab_state *s = sandbox_new(0, 0, &e);
    assert_non_null(s);
    lua_State *L = sandbox_lua(s);
    lua_pushcfunction(L, c_twice);
    assert_true(sandbox_set_global(s, "twice", &e));
    lua_newtable(L);
    lua_newtable(L);
    lua_pushinteger(L, 7);
    lua_setfield(L, -2, "seven");
    lua_setfield(L, -2, "inner");
    assert_true(sandbox_set_global(s, "consts", &e));
    lua_newtable(L);
    lua_pushinteger(L, 9);
    lua_setfield(L, -2, "nine");
    assert_true(sandbox_expose(s, &e));
    assert_int_equal(lua_gettop(L), 0);
    if (!run(s,
             "assert(twice(21) == 42 and nine == 9 and consts.inner.seven == 7)\n"
             "assert(not pcall(function() consts.inner.seven = 8 end))\n"
             "assert(not pcall(rawset, consts.inner, 'seven', 8))\n",
             &e))
        fail_msg("%s", e.msg);

    lua_createtable(L, 2, 0);
    lua_pushinteger(L, 10);
    lua_rawseti(L, -2, 1);
    lua_pushinteger(L, 20);
    lua_rawseti(L, -2, 2);
    assert_true(sandbox_freeze(s, &e));
    assert_true(lua_istable(L, -1));
    assert_true(sandbox_dofile(s, chunk("f.lua",
                                        "return function(t)\n"
                                        "  local sum = 0 for _, v in ipairs(t) do sum = sum + v end\n"
                                        "  return #t, sum, pcall(function() t[1] = 0 end)\n"
                                        "end"),
                               1, &e));
    lua_insert(L, -2);
    assert_true(sandbox_pcall(s, 1, 3, &e));
    assert_int_equal(lua_tointeger(L, -3), 2);
    assert_int_equal(lua_tointeger(L, -2), 30);
    assert_false(lua_toboolean(L, -1));
    lua_settop(L, 0);
    sandbox_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_results_and_errors),
        cmocka_unit_test(test_long_path_in_messages),
        cmocka_unit_test(test_memory_limit),
        cmocka_unit_test(test_time_limit),
        cmocka_unit_test(test_time_limit_counts_cpu),
        cmocka_unit_test(test_guarded_library_loops),
        cmocka_unit_test(test_slow_patterns),
        cmocka_unit_test(test_text_only),
        cmocka_unit_test(test_globals),
        cmocka_unit_test(test_print_output),
        cmocka_unit_test(test_globals_from_c),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
