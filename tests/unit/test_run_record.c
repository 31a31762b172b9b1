/* The record of a run without MPI (suite/record/run_record.h): the mean of
 * the Congestion Impact entries that the load test's matrices print (the
 * congestor matrix, the burst-shape matrix and their JSON) over the
 * repetitions, per test and congestor set, NaN where none was recorded. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "suite/record/run_record.h"

static void add(run_t *run, int repetition, const char *test, const char *set, double avg,
                double p99)
{
    run->repetition = repetition;
    run_impact_t *e = run_add_impact(run);
    snprintf(e->test_id, sizeof(e->test_id), "%s", test);
    snprintf(e->congestor, sizeof(e->congestor), "%s", set);
    e->avg = avg;
    e->p99 = p99;
}

int main(void)
{
    run_t run;
    memset(&run, 0, sizeof(run)); /* rank 0, nothing recorded */
    double avg, p99;

    run_impact_mean(&run, "rr_two_sided_lat", IMPACT_ALL_CONGESTORS, &avg, &p99);
    CHECK(isnan(avg) && isnan(p99));

    /* Two repetitions, two sets, two tests: each mean takes only its own. */
    add(&run, 1, "rr_two_sided_lat", IMPACT_ALL_CONGESTORS, 2.0, 10.0);
    add(&run, 1, "rr_two_sided_lat", "burst:0", 100.0, 1000.0);
    add(&run, 1, "multiple_allreduce", IMPACT_ALL_CONGESTORS, 50.0, 500.0);
    add(&run, 2, "rr_two_sided_lat", IMPACT_ALL_CONGESTORS, 4.0, 30.0);
    CHECK(run.record.n_impact == 4 && run.record.impact[3].repetition == 2);

    run_impact_mean(&run, "rr_two_sided_lat", IMPACT_ALL_CONGESTORS, &avg, &p99);
    CHECK_NEAR(avg, 3.0, 1e-15);
    CHECK_NEAR(p99, 20.0, 1e-15);
    run_impact_mean(&run, "rr_two_sided_lat", "burst:0", &avg, &p99);
    CHECK_NEAR(avg, 100.0, 1e-15);
    CHECK_NEAR(p99, 1000.0, 1e-15);
    run_impact_mean(&run, "multiple_allreduce", IMPACT_ALL_CONGESTORS, &avg, &p99);
    CHECK_NEAR(avg, 50.0, 1e-15);
    /* A set or a test never measured: NaN, which the matrices print as such. */
    run_impact_mean(&run, "rr_two_sided_lat", "burst:1", &avg, &p99);
    CHECK(isnan(avg) && isnan(p99));
    run_impact_mean(&run, "rr_get_lat", IMPACT_ALL_CONGESTORS, &avg, &p99);
    CHECK(isnan(avg) && isnan(p99));

    run_record_free(&run);
    CHECK(run.record.n_impact == 0 && run.record.impact == NULL);
    return check_report("test_run_record");
}
