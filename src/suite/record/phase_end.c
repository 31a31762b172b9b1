#include "suite/record/phase_end.h"

#include <stdio.h>
#include <time.h>

#include "infra/watchdog.h"
#include "suite/record/phase_counters.h"
#include "suite/record/results_json.h"
#include "suite/run_lifecycle.h"
#include "suite/record/run_record.h"

void suite_phase_end(run_t *run, const char *name, double wall_s)
{
    if (run->counters.counting)
        phase_counters_end(run);
    if (run->env.rank != 0)
        return;
    run_record_phase(run, name, wall_s);
    results_json_write(run);
    watchdog_note_step(NULL, NULL); /* saved: an abort from here on is in no step */
}

void suite_save(run_t *run)
{
    if (run->env.rank == 0)
        results_json_write(run);
}

void suite_finish(run_t *run)
{
    run->finished = time(NULL);
    run->status = "complete";
    int lost = 0;
    if (run->env.rank == 0) {
        lost = results_json_write(run) != 0;
        if (lost)
            fprintf(stderr, "%s: error: the results could not be written to %s\n",
                    program_name(run->env.program), run->env.json_path);
        else if (!run->env.plan->set.quiet)
            fprintf(stderr, "[gpcnet %7.1fs] results written to %s\n", MPI_Wtime() - run->env.t0,
                    run->env.json_path);
    }
    /* A run without its results file has not succeeded. */
    run_finish(run, lost ? 1 : 0);
}
