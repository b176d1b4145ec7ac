/* cli_runms.c - the milestones a `cudalab run` judged (cli/cli_runms.h). */
#include "cli/cli_runms.h"

#include <stdbool.h>
#include <stdio.h>

cJSON *cli_runms_json(const lab *l, const lab_exercise *x, const ms_eval *ev)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; arr && i < l->nmilestones; i++) {
        const lab_milestone *m = &l->milestones[i];
        if (lab_milestone_exercise(l, i) != x)
            continue;
        cJSON *o = cJSON_CreateObject();
        if (!o)
            break;
        cJSON_AddItemToArray(arr, o);
        cJSON_AddStringToObject(o, "id", m->id);
        cJSON_AddStringToObject(o, "text", m->text);
        cJSON_AddStringToObject(o, "state", m->quiz ? "quiz" : ms_state_name(ev[i].state));
        cJSON_AddStringToObject(o, "shown", m->quiz ? "" : ev[i].shown);
        cJSON_AddStringToObject(o, "error", m->quiz ? "" : ev[i].error);
        cJSON_AddStringToObject(o, "why", m->quiz ? "" : ev[i].why);
    }
    return arr;
}

void cli_runms_print(lab *l, const lab_exercise *x, const ms_eval *ev,
                     const run_result *rows, size_t nrows, int newly)
{
    printf("\nmilestones (judged on your kernel's row):\n");
    bool used[4] = {false, false, false, false};
    int quizzes = 0;
    for (size_t i = 0; i < l->nmilestones; i++) {
        const lab_milestone *m = &l->milestones[i];
        if (lab_milestone_exercise(l, i) != x)
            continue;
        if (m->quiz) {
            quizzes++;
            continue;
        }
        static const char *const mark[] = {"[ ]", "[x]", "[-]", "[!]"};
        used[ev[i].state] = true;
        const char *said = ev[i].state == MS_ERROR ? ev[i].error : ev[i].shown;
        printf("  %s %s%s%s", mark[ev[i].state], m->text, said[0] ? ": " : "", said);
        if (ev[i].state == MS_PENDING && ev[i].why[0])
            printf("; %s", ev[i].why);
        /* Pending at its judged size: what the other sizes showed. */
        ms_eval judged, aside;
        char aside_size[RUN_SIZE_MAX];
        const char *jsize = lab_milestone_size(l, i);
        if (ev[i].state == MS_PENDING && jsize &&
            lab_milestone_eval_sized(l, i, rows, nrows, &judged, &aside, aside_size,
                                     sizeof aside_size) &&
            aside_size[0])
            printf("%s%s at %s; judged at %s (--size %s)", ev[i].shown[0] ? "; " : ": ",
                   aside.shown, aside_size, jsize, jsize);
        putchar('\n');
    }
    /* what each mark shown means */
    static const char *const legend[] = {"[ ] not judged (its row did not run here)",
                                         "[x] reached", "[-] missed",
                                         "[!] its check failed"};
    const char *sep = "  marks: ";
    for (int k = 0; k < 4; k++)
        if (used[k]) {
            printf("%s%s", sep, legend[k]);
            sep = "; ";
        }
    if (sep[0] == ';')
        putchar('\n');
    if (quizzes)
        printf("  and %d quiz milestone%s, reached by answering in the terminal lab "
               "(cudalab, then the lab's quiz)\n",
               quizzes, quizzes == 1 ? "" : "s");
    if (newly)
        printf("  (%d reached for the first time: see 'cudalab progress')\n", newly);
}
