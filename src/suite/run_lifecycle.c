#include "suite/run_lifecycle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infra/fatal.h"
#include "infra/fault_probe.h"
#include "infra/nic_record.h"
#include "infra/watchdog.h"
#include "suite/launch_roles.h"
#include "suite/load_test/congestor_job.h"
#include "suite/options/kernel_options.h"
#include "suite/output_checks.h"
#include "suite/record/phase_counters.h"
#include "suite/record/run_record.h"

#define MSG_LEN 1024

static const char *test_ids[OPT_MAX_LIST];
static const char *congestor_ids[OPT_MAX_LIST];

static void catalogues(name_catalog_t *tests, name_catalog_t *congestors)
{
    tests->defaults = 0;
    for (int i = 0; i < canary_kernel_count; i++) {
        test_ids[i] = canary_kernels[i]->id;
        tests->defaults += canary_in_default_set[i];
    }
    for (int i = 0; i < congestor_kernel_count; i++)
        congestor_ids[i] = congestor_kernels[i]->id;
    tests->ids = test_ids;
    tests->count = canary_kernel_count;
    congestors->ids = congestor_ids;
    congestors->count = congestor_kernel_count;
    congestors->defaults = 0;
}

/* The one-sided kernels this run will use, comma-separated into buf
 * (empty: none). */
static void list_id(char *buf, size_t len, const char *id)
{
    size_t n = strlen(buf);
    snprintf(buf + n, len - n, "%s%s", n ? ", " : "", id);
}

static void one_sided_kernels(const run_t *run, char *buf, size_t len)
{
    buf[0] = '\0';
    const run_plan_t *p = run->env.plan;
    int tests = run->env.program != PROGRAM_NETWORK_CONGESTOR;
    int congestors = run->env.program != PROGRAM_NETWORK_TEST && !p->flows;
    for (int i = 0; tests && i < p->n_tests; i++)
        if (p->tests[i].kernel->one_sided)
            list_id(buf, len, p->tests[i].kernel->id);
    for (int i = 0; congestors && i < p->n_congestors; i++)
        if (p->congestors[i].kernel->one_sided)
            list_id(buf, len, p->congestors[i].kernel->id);
}

/* --fault-probe runs MPI with MPI_THREAD_MULTIPLE, with which some MPIs
 * cannot make one-sided windows: Open MPI 4.1 over TCP (osc/pt2pt does not
 * support threads, osc/rdma wants an RDMA network) fails in the first
 * MPI_Win_allocate across nodes, mid-set-up, and aborts the job. One small
 * window over world, before anything is measured, finds that out; every
 * rank then leaves with the same message. Collective over world. */
static void check_windows_with_threads(const run_t *run)
{
    char kernels[256];
    one_sided_kernels(run, kernels, sizeof(kernels));
    if (!kernels[0])
        return;
    MPI_Comm c;
    MPI_Comm_dup(run->env.world, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    double *base = NULL;
    MPI_Win win;
    int failed = MPI_Win_allocate(sizeof(double), sizeof(double), MPI_INFO_NULL, c, &base,
                                  &win) != MPI_SUCCESS;
    if (!failed)
        MPI_Win_free(&win);
    int any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, run->env.world);
    MPI_Comm_free(&c);
    if (any)
        exit_all(2, "%s: --fault-probe: with MPI_THREAD_MULTIPLE this MPI cannot make the "
                    "one-sided windows that %s use%s (MPI_Win_allocate fails; Open MPI 4.1 over "
                    "TCP does); leave out --fault-probe, or these with --tests/--congestors\n",
                 program_name(run->env.program), kernels, strchr(kernels, ',') ? "" : "s");
}

void run_init(run_t *run, program_t program, int *argc, char ***argv)
{
    memset(run, 0, sizeof(*run));
    /* As the reference, MPI without threads, unless --fault-probe asks for
     * its thread (read from the command line before MPI starts). */
    int thread_level = MPI_THREAD_SINGLE;
    if (fault_probe_wanted(*argc, *argv))
        MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &thread_level);
    else
        MPI_Init(argc, argv);
    MPI_Query_thread(&thread_level); /* what MPI_Init gave, too */
    run->env.t0 = MPI_Wtime();
    run->env.started = time(NULL);
    run->env.program = program;
    run->env.world = MPI_COMM_WORLD;
    run->counters.leaders = MPI_COMM_NULL;
    run->status = "running";
    run->env.setup_s = -1.0;
    MPI_Comm_rank(run->env.world, &run->env.rank);
    MPI_Comm_size(run->env.world, &run->env.size);
    /* An MPMD launch: every application the same command (launch_roles.h). */
    int launch_apps = launch_apps_check(run->env.world, program_name(program), *argc, *argv);

    name_catalog_t tests, congestors;
    catalogues(&tests, &congestors);
    char err[MSG_LEN];
    /* The kernels' own options join the table before anything reads it. */
    if (kernel_options_install(err, sizeof(err)))
        exit_all(2, "%s: %s\n", program_name(program), err);
    opt_status_t st = options_parse(&run->env.opt, program, *argc, *argv, &tests, &congestors, err,
                                    sizeof(err));
    /* A usage error is its one line and where the options are listed: the
     * whole usage after it would bury the line a wrapper or a person reads. */
    if (st == OPT_ERROR)
        exit_all(2, "%s: %s\nSee '%s --help' for the options.\n", program_name(program), err,
                 program_name(program));
    if (st != OPT_RUN) {
        static char usage[8192];
        options_usage(program, &tests, &congestors, usage, sizeof(usage));
        if (run->env.rank == 0) {
            if (st == OPT_HELP)
                fputs(usage, stdout);
            else
                printf("%s (GPCNeT) %s\n", program_name(program), GPCNET_VERSION);
        }
        exit_all(0, NULL);
    }

    int len = 0;
    MPI_Get_library_version(run->env.mpi_library, &len);
    run->env.mpi_library[strcspn(run->env.mpi_library, "\r\n")] = '\0';
    int ver, sub;
    MPI_Get_version(&ver, &sub);
    snprintf(run->env.mpi_standard, sizeof(run->env.mpi_standard), "%d.%d", ver, sub);
    run->env.mpi_thread_level = thread_level == MPI_THREAD_MULTIPLE    ? "multiple"
                            : thread_level == MPI_THREAD_SERIALIZED ? "serialized"
                            : thread_level == MPI_THREAD_FUNNELED   ? "funneled"
                                                                    : "single";

    /* Without --seed the placement seed is rank 0's clock (the reference
     * default, so placement cannot be tuned for), read before the plan is
     * built because the plan itself needs no MPI. */
    unsigned long long clock_seed = 0;
    if (!run->env.opt.seed_given) {
        clock_seed = (unsigned long long)time(NULL);
        MPI_Bcast(&clock_seed, 1, MPI_UNSIGNED_LONG_LONG, 0, run->env.world);
    }
    /* The one place the options become the plan; nothing changes it after. */
    run_plan_t *plan = xmalloc(sizeof(*plan));
    run_plan_build(plan, &run->env.opt, program, clock_seed);
    if (program == PROGRAM_NETWORK_LOAD_TEST && launch_apps > 1)
        run_plan_roles_from_launch(plan);
    run->env.plan = plan;
    run->repetition = 1;
    if (run_plan_check_kernel_options(plan, &run->env.opt, err, sizeof(err)))
        exit_all(2, "%s: %s\nSee '%s --help' for the options.\n", program_name(program), err,
                 program_name(program));

    if (nodes_discover(&run->env.nodes, run->env.world, run->env.plan->set.emulate_ppn, run->env.plan->set.emulate_nodes))
        exit_all(2, "%s: --emulate-node-count %d is larger than the %d ranks of this job\n",
                 program_name(program), run->env.plan->set.emulate_nodes, run->env.size);
    /* An MPMD launch's roles are checked before the output directory is
     * made: a refused launch leaves nothing behind (launch_roles.h). */
    if (program == PROGRAM_NETWORK_LOAD_TEST) {
        launch_roles_init(run, launch_apps);
        congestor_job_init(run); /* --congestor-job-start: refused before, too */
    }
    output_checks_run(run);
    /* gpcnet-bind's GPCNET_NIC: checked and recorded (nothing without it). */
    nic_record_init(run->env.world, &run->env.nodes, program_name(program));
    run_add_json_section(run, (run_json_section_t){nic_record_json, NULL});
#ifdef SMPI_H
    /* Simulated ranks share one process: a real thread and a real-time
     * timer mean nothing there (the deadline counts simulated seconds). */
    if (run->env.plan->set.fault_probe > 0.0)
        exit_all(2, "%s: --fault-probe is not available under SimGrid\n", program_name(program));
#endif
    if (run->env.plan->set.fault_probe > 0.0 && thread_level < MPI_THREAD_MULTIPLE)
        exit_all(2, "%s: --fault-probe needs MPI_THREAD_MULTIPLE, which this MPI does not "
                    "provide (it gave level %d); run without --fault-probe (on Cray MPICH, set "
                    "MPICH_MAX_THREAD_SAFETY=multiple)\n",
                 program_name(program), thread_level);
    if (run->env.plan->set.fault_probe > 0.0)
        check_windows_with_threads(run);
    watchdog_start(run->env.rank, run->env.plan->set.deadline, run->env.json_path);
    if (run->env.plan->set.fault_probe > 0.0)
        fault_probe_start(run->env.world, &run->env.nodes, run->env.plan->set.deadline, run->env.plan->set.fault_probe);
}

void run_setup_done(run_t *run)
{
    /* The slowest rank ends set-up for everyone: one barrier, O(log N). */
    MPI_Barrier(run->env.world);
    if (run->env.rank == 0)
        run->env.setup_s = MPI_Wtime() - run->env.t0;
}

void run_finish(run_t *run, int exit_status)
{
    fault_probe_stop();
    nic_record_free();
    phase_counters_free(run);
    run_record_free(run);
    if (run->record.rep_placement) {
        for (int i = 0; i < run->env.plan->set.repeat; i++)
            if (run->record.rep_placement[i].order)
                placement_free(&run->record.rep_placement[i]);
        free(run->record.rep_placement);
    }
    if (run->have_placement)
        placement_free(&run->placement);
    nodes_free(&run->env.nodes);
    free((void *)run->env.plan);
    run->env.plan = NULL;
    fflush(stdout);
    /* No rank leaves before every rank is done. MPI_Finalize's own closing
     * fence should ensure that, but under srun with Slurm 22.05's PMIx
     * plugin three ranks of a load test once passed it while the others
     * were still collecting results, and the job then hung on a message
     * that never came (docs/running.md#slurm-on-the-testbed). A barrier
     * over the MPI library's own transport keeps each rank reading what
     * its peers send until all are here. */
    MPI_Barrier(run->env.world);
    MPI_Finalize();
    if (exit_status)
        exit(exit_status);
}
