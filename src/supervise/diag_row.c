#include "supervise/diag_row.h"

#include <stdio.h>
#include <string.h>

#include "catalog/problem_spec.h"

bool diag_row_compile(const run_result *result, diag_input *in, char *text, size_t text_size)
{
    char file[256];
    int line = 0, col = 0, off = 0, more = 0;
    if (result->kind != RK_EXERCISE || result->status != RS_ERROR ||
        sscanf(result->message, "%255[^:\n]:%d:%d: error: %n", file, &line, &col, &off) != 3 ||
        off <= 0)
        return false;
    /* text holds the file name, then the message without its count. */
    int fl = snprintf(text, text_size, "%s", file);
    if (fl < 0 || (size_t)fl + 2 >= text_size)
        return false;
    char *msg = text + fl + 1;
    snprintf(msg, text_size - (size_t)fl - 1, "%s", result->message + off);
    char *tail = strstr(msg, " (and ");
    if (tail && sscanf(tail, " (and %d more error", &more) == 1)
        *tail = '\0';
    in->compile_errors = 1 + more;
    in->compile_file = text;
    in->compile_line = line;
    in->compile_col = col;
    in->compile_message = msg;
    return true;
}

void diag_row(const run_result *result, const run_fault *fault, const problem_spec *spec,
              double time_limit_s, const char *output, diagnosis *out)
{
    diag_input in;
    char text[768];
    diag_input_init(&in);
    in.spec = spec;
    in.time_limit_s = time_limit_s;
    in.device_output = output;
    if (result) {
        diag_input_from_result(&in, result);
        diag_row_compile(result, &in, text, sizeof text);
    }
    if (fault)
        diag_input_from_fault(&in, fault);
    diagnose(&in, out);
}
