#include "suite/output_checks.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "infra/fatal.h"
#include "infra/node_lists.h"
#include "infra/safe_file.h"

#define MSG_LEN 1024

/* The directory a path is in ("." for a bare name). */
static void dir_of(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, len, ".");
    else if (slash == path)
        snprintf(dir, len, "/");
    else
        snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/* A missing directory is made with its parents; the message names what
 * could not be made or written, and why. */
static int output_dir_ready(const run_t *run, const char *dir, char *msg, size_t len)
{
    const char *prog = program_name(run->env.program);
    char failed[OPT_PATH_MAX];
    struct stat st;
    if (stat(dir, &st) != 0 && safe_mkdirs(dir, failed, sizeof(failed)) != 0) {
        snprintf(msg, len, "%s: cannot create output directory '%.400s': %s (at '%.400s')\n", prog,
                 dir, strerror(errno), failed);
        return -1;
    }
    if (safe_dir_probe(dir) != 0) {
        int err = errno;
        if (err == ENOENT && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
            snprintf(msg, len,
                     "%s: cannot write to output directory '%.800s': it exists, but its file "
                     "system accepts no new files (%s)\n",
                     prog, dir, strerror(err));
        else
            snprintf(msg, len, "%s: cannot write to output directory '%.800s': %s\n", prog, dir,
                     strerror(err));
        return -1;
    }
    return 0;
}

/* The results file itself: writable now, disk not full, and not a
 * directory. A temporary beside it is written and removed; returns 0 or the
 * errno of the failure. The one write of the checks. */
static int probe_results_file(const char *path)
{
    char tmp[OPT_PATH_MAX + 16];
    FILE *t = safe_tmp_open(path, tmp, sizeof(tmp));
    int bad = !t || fputs("{}\n", t) < 0;
    int err = errno;
    if (t && fclose(t) != 0 && !bad) {
        bad = 1;
        err = errno;
    }
    if (t && tmp[0]) /* an unnamed one is gone with the stream */
        remove(tmp);
    return bad ? (err ? err : EIO) : 0;
}

/* Rank 0 checks the output places before anything is measured, so a typo
 * costs seconds, not a reservation. Nothing is written through a link
 * (infra/safe_file.h), and no existing output is replaced without --force. */
void output_checks_run(run_t *run)
{
    char msg[MSG_LEN] = "";
    const run_plan_t *plan = run->env.plan;
    const char *prog = program_name(run->env.program);
    if (plan->set.json_path[0])
        snprintf(run->env.json_path, sizeof(run->env.json_path), "%s", plan->set.json_path);
    else
        snprintf(run->env.json_path, sizeof(run->env.json_path), "%.4000s/%s.json", plan->set.output_dir, prog);
    char json_dir[OPT_PATH_MAX];
    dir_of(run->env.json_path, json_dir, sizeof(json_dir));
    if (run->env.rank == 0 && output_dir_ready(run, plan->set.output_dir, msg, sizeof(msg)) == 0 &&
        output_dir_ready(run, json_dir, msg, sizeof(msg)) == 0) {
        int err = probe_results_file(run->env.json_path);
        int bad = err != 0;
        const char *special = safe_special(run->env.json_path);
        char found[OPT_PATH_MAX + 64];
        if (bad)
            snprintf(msg, sizeof(msg), "%s: cannot write the results file '%.800s': %s\n", prog,
                     run->env.json_path, strerror(err));
        else if (special) /* refused even with --force: never opened, never replaced */
            snprintf(msg, sizeof(msg),
                     "%s: results file '%.800s' is not a regular file (it is %s); refusing to "
                     "write there\n",
                     prog, run->env.json_path, special);
        else if (!plan->set.force && safe_exists(run->env.json_path))
            snprintf(msg, sizeof(msg),
                     "%s: results file '%.800s' already exists; use --force to overwrite it "
                     "or --json/--output-dir to choose another place\n",
                     prog, run->env.json_path);
        else if (!plan->set.force && run->env.program == PROGRAM_NETWORK_LOAD_TEST &&
                 node_lists_existing(plan->set.output_dir, plan->set.repeat, found, sizeof(found)))
            snprintf(msg, sizeof(msg),
                     "%s: node list '%.800s' already exists; use --force to overwrite it "
                     "or --output-dir to choose another place\n",
                     prog, found);
    }
    MPI_Bcast(msg, MSG_LEN, MPI_CHAR, 0, run->env.world);
    if (msg[0])
        exit_all(1, "%s", msg);
}

