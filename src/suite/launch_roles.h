/* Roles from the launch (docs/method.md#roles-from-the-launch): an MPMD
 * launch of network_load_test (mpirun -np A ... : -np B ...) gives its
 * roles itself, through the MPI standard's MPI_APPNUM: application 0 runs
 * canaries, application 1 congestors, each with the environment its part of
 * the launch set (a traffic class, a route), which the network library reads
 * in MPI_Init, before the program could choose anything. A launch of one
 * application leaves the roles to the program's own draw, as published. */
#ifndef GPCNET_LAUNCH_ROLES_H
#define GPCNET_LAUNCH_ROLES_H

#include <mpi.h>

#include "suite/run_context.h"

/* Collective over world, right after MPI_Init: the applications of an MPMD
 * launch must run one program with the same options (only their
 * environments may differ), else the ranks would follow different plans and
 * wait for each other forever. Refused with one line, exit 2. Returns how
 * many applications the launch has (1 for a plain launch). */
int launch_apps_check(MPI_Comm world, const char *program, int argc, char **argv);

/* Collective over world, load test, in run_init (after the nodes are
 * known, before the output directory is made). apps: how many
 * applications the launch has (launch_apps_check's answer, the same on
 * every rank). With one application nothing happens and 0 is returned.
 * Otherwise checks the launch against the rules of the draw (whole nodes
 * per role, 2 canary nodes and 2 nodes per congestor, no
 * --canary-fraction, no --placement colocated), refusing with one line
 * and exit 2, and returns 1: launch_roles_placement then places every
 * repetition. */
int launch_roles_init(run_t *run, int apps);
/* Collective over world: every rank's launch variables, per role (the
 * launch's two, or one group "all" under the draw), for the JSON. */
void launch_roles_collect_env(run_t *run);
/* 1 when the roles come from the launch (the same on every rank). */
int launch_roles_active(void);
/* The placement of the current repetition from the launch's roles: the
 * kernels dealt with run_seed() as the draw deals them. */
int launch_roles_placement(run_t *run, placement_t *p);
/* The canary nodes' share of the nodes the launch gave (0 under the draw). */
double launch_roles_canary_share(const run_t *run);
/* The preamble's line: "canary share: from the launch (A of N nodes)". */
void launch_roles_share_line(const run_t *run, char *buf, size_t len);
/* The "roles" member of the results document (a run_json_section_t):
 * where the roles came from and, per role, the launch variables
 * (suite/launch_env.h). ctx NULL: the load test; a role name (a const
 * char *): network_congestor, whose whole job has that one role. */
void launch_roles_json(json_writer_t *w, const run_t *run, const void *ctx);
void launch_roles_free(void);

#endif
