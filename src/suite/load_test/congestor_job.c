#define _POSIX_C_SOURCE 200809L
#include "suite/load_test/congestor_job.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "infra/exit_file.h"
#include "infra/fatal.h"
#include "infra/safe_file.h"
#include "suite/launch_env.h"
#include "suite/launch_roles.h"
#include "suite/options/option_table.h"

#define PROG "network_load_test"

static struct {
    int active;
    int start_created, stop_created; /* rank 0 */
} job;

int congestor_job_active(void) { return job.active; }

/* Options that need congestors in this job, or more than one loaded
 * phase: the first one given, or NULL. The same on every rank. */
static const char *in_job_option(const run_t *run)
{
    const run_settings_t *set = &run->env.plan->set;
    const options_t *o = &run->env.opt;
    if (o->canary_fraction_given)
        return "--canary-fraction";
    if (set->placement == PLACEMENT_COLOCATED)
        return "--placement colocated";
    if (set->congestor_sweep)
        return "--congestor-sweep";
    if (o->burst_sweep.n_on > 0)
        return "--burst-sweep";
    if (o->burst[0] > 0.0)
        return "--burst";
    if (set->timeline)
        return "--timeline";
    if (set->repeat > 1)
        return "--repeat";
    if (set->verbose)
        return "--verbose";
    if (o->congestor_measurements > 0)
        return "--congestor-measurements";
    if (o->congestor_iterations > 0)
        return "--congestor-iterations";
    if (o->n_congestors > 0)
        return "--congestors";
    if (option_differs(o, option_by_key("congestor_bytes")))
        return "--congestor-bytes";
    return NULL;
}

/* Rank 0: why `path` cannot be this run's fresh signal file, or "". */
static void check_path(const char *option, const char *path, char *msg, size_t len)
{
    struct stat st;
    if (msg[0])
        return;
    if (lstat(path, &st) == 0) {
        snprintf(msg, len,
                 PROG ": %s %s: %s is there already; remove it (a congestor job would start "
                 "or stop at once) or give a fresh name\n",
                 option, path, safe_kind(st.st_mode));
        return;
    }
    char copy[OPT_PATH_MAX];
    snprintf(copy, sizeof(copy), "%s", path);
    const char *dir = dirname(copy);
    if (lstat(dir, &st) != 0)
        snprintf(msg, len, PROG ": %s %s: directory '%s' does not exist; create it first\n",
                 option, path, dir);
    else if (S_ISLNK(st.st_mode))
        snprintf(msg, len,
                 PROG ": %s %s: '%s' is a symbolic link; give the path of the directory itself "
                 "(no file is created through a link)\n",
                 option, path, dir);
    else if (!S_ISDIR(st.st_mode))
        snprintf(msg, len, PROG ": %s %s: '%s' is not a directory\n", option, path, dir);
}

int congestor_job_init(run_t *run)
{
    const run_settings_t *set = &run->env.plan->set;
    const char *start = set->congestor_job_start, *stop = set->congestor_job_stop;
    if (!start[0] && !stop[0]) {
        if (option_differs(&run->env.opt, option_by_key("congestor_job_settle_s")))
            exit_all(2, PROG ": --congestor-job-settle applies with --congestor-job-start and "
                        "--congestor-job-stop only; drop it or give both\n");
        return 0;
    }
    if (!stop[0])
        exit_all(2,
                 PROG ": --congestor-job-start needs --congestor-job-stop PATH too (the "
                 "congestor job's --stop-file), so that the congestor job ends with this one\n");
    if (!start[0])
        exit_all(2,
                 PROG ": --congestor-job-stop needs --congestor-job-start PATH (the congestor "
                 "job's --start-file)\n");
    if (strcmp(start, stop) == 0)
        exit_all(2,
                 PROG ": --congestor-job-start and --congestor-job-stop name the same file %s; "
                 "give two names\n",
                 start);
    const char *other = in_job_option(run);
    if (other)
        exit_all(2,
                 PROG ": %s needs the congestors in this job, and --congestor-job-start puts "
                 "them in a separate job (every node here runs canaries); drop %s or "
                 "--congestor-job-start\n",
                 other, other);
    if (launch_roles_active())
        exit_all(2,
                 PROG ": an MPMD launch gives this job congestors of its own, and "
                 "--congestor-job-start puts them in a separate job; launch one application\n");
    if (run->env.nodes.n_nodes < 2)
        exit_all(2,
                 PROG ": --congestor-job-start needs at least 2 nodes in this job (every node "
                 "runs canaries); found %d. Emulate nodes with --emulate-nodes K.\n",
                 run->env.nodes.n_nodes);
    char msg[OPT_PATH_MAX + 512] = "";
    if (run->env.rank == 0) {
        check_path("--congestor-job-start", start, msg, sizeof(msg));
        check_path("--congestor-job-stop", stop, msg, sizeof(msg));
    }
    MPI_Bcast(msg, (int)sizeof(msg), MPI_CHAR, 0, run->env.world);
    if (msg[0])
        exit_all(2, "%s", msg);
    job.active = 1;
    return 1;
}

void congestor_job_arm_stop(const run_t *run)
{
    if (job.active && run->env.rank == 0)
        exit_file_arm(run->env.plan->set.congestor_job_stop);
}

void congestor_job_signal_start(run_t *run)
{
    const run_settings_t *set = &run->env.plan->set;
    int err = 0;
    if (run->env.rank == 0) {
        int fd = open(set->congestor_job_start,
                      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY, 0644);
        if (fd < 0) {
            err = errno;
        } else {
            static const char word[] = "gpcnet: start\n";
            (void)!write(fd, word, sizeof(word) - 1);
            close(fd);
            job.start_created = 1;
            if (!set->quiet)
                fprintf(stderr,
                        "[gpcnet] created the start file %s; the loaded tests begin in %g s\n",
                        set->congestor_job_start, set->congestor_job_settle);
            struct timespec nap;
            nap.tv_sec = (time_t)set->congestor_job_settle;
            nap.tv_nsec = (long)((set->congestor_job_settle - (double)nap.tv_sec) * 1e9);
            while (nanosleep(&nap, &nap) != 0 && errno == EINTR) {
            }
        }
    }
    MPI_Bcast(&err, 1, MPI_INT, 0, run->env.world);
    if (err) /* exit runs the stop file's atexit (rank 0) */
        exit_all(1,
                 PROG ": cannot create the start file %s: %s (something took the name during "
                 "the isolated tests?); the congestor job was not started, the stop file %s "
                 "is created; the isolated results are in %s\n",
                 set->congestor_job_start, strerror(err), set->congestor_job_stop,
                 run->env.json_path);
    MPI_Barrier(run->env.world);
}

void congestor_job_signal_stop(const run_t *run)
{
    if (run->env.rank != 0)
        return;
    if (exit_file_create() != 0)
        fprintf(stderr,
                "gpcnet: warning: cannot create the stop file %s: %s; stop the congestor job "
                "yourself (its --duration ends it in any case)\n",
                run->env.plan->set.congestor_job_stop, strerror(errno));
    else
        job.stop_created = 1;
}

void congestor_job_preamble_line(char *buf, size_t len)
{
    snprintf(buf, len, "  congestors: a separate job (network_congestor --start-file)");
}

void congestor_job_roles_json(json_writer_t *w, const run_t *run, const void *ctx)
{
    (void)ctx;
    const run_settings_t *set = &run->env.plan->set;
    jw_object_begin(w, "roles");
    jw_string(w, "source", "separate_job");
    jw_string(w, "start_file", set->congestor_job_start);
    jw_string(w, "stop_file", set->congestor_job_stop);
    jw_number(w, "settle_s", set->congestor_job_settle);
    jw_bool(w, "start_created", job.start_created);
    jw_bool(w, "stop_created", job.stop_created);
    jw_int(w, "canary_nodes", run->env.nodes.n_nodes);
    const char *const roles[] = {"canaries"};
    launch_env_json(w, &run->env.nodes, roles);
    jw_object_end(w);
}
