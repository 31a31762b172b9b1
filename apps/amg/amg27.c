/* amg27: the poster's AMG test problem shape for `gpcnet study`
 * (docs/studies.md, Applications). Debian 12 packages hypre as a library
 * only (no AMG benchmark, no drivers), so this is our own small driver:
 * a 27-point Laplacian on a cube of N^3 points per rank (ranks on a 3-D
 * grid, weak scaling), solved by conjugate gradients preconditioned with
 * hypre's BoomerAMG. Its communication is what the poster describes:
 * nearest-neighbour halos on the fine grid that become non-local and
 * small (latency bound) on the coarse grids.
 *
 * Usage: amg27 [-n N] [-tol T] [-maxit K]   (defaults 30, 1e-8, 100)
 * Figure of merit (rank 0, stdout): "amg27: time T s" = setup + solve,
 * the slowest rank's. Bad arguments: one line on stderr, exit 2. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <HYPRE.h>
#include <HYPRE_parcsr_ls.h>

struct layout {
    int n;            /* points per rank along each axis */
    int dims[3];      /* ranks along x, y, z */
    int me[3];        /* this rank's coordinates */
};

/* Global row of point (x, y, z): rows are numbered rank by rank (hypre's
 * IJ interface wants each rank's rows contiguous), x fastest inside one. */
static HYPRE_BigInt row_of(const struct layout *l, int x, int y, int z)
{
    int n = l->n;
    int px = x / n, py = y / n, pz = z / n;
    long long owner = ((long long)pz * l->dims[1] + py) * l->dims[0] + px;
    long long local = ((long long)(z % n) * n + (y % n)) * n + (x % n);
    return (HYPRE_BigInt)(owner * n * n * n + local);
}

#define USAGE "(usage: amg27 [-n N] [-tol T] [-maxit K])"

/* 0, or 2 with the reason in `why` (main prints it from rank 0 only: all
 * ranks parse the same arguments, and a study's log should say it once). */
static int parse_args(int argc, char **argv, int *n, double *tol, int *maxit, char *why, size_t len)
{
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (i + 1 >= argc)
            return snprintf(why, len, "%s needs a value " USAGE, argv[i]), 2;
        const char *opt = argv[i], *arg = argv[++i];
        if (!strcmp(opt, "-n")) {
            long v = strtol(arg, &end, 10);
            if (!*arg || *end || v < 2 || v > 200)
                return snprintf(why, len, "-n %s: expected an integer from 2 to 200", arg), 2;
            *n = (int)v;
        } else if (!strcmp(opt, "-tol")) {
            double v = strtod(arg, &end);
            if (!*arg || *end || !(v > 0 && v < 1))
                return snprintf(why, len, "-tol %s: expected a number between 0 and 1", arg), 2;
            *tol = v;
        } else if (!strcmp(opt, "-maxit")) {
            long v = strtol(arg, &end, 10);
            if (!*arg || *end || v < 1 || v > 100000)
                return snprintf(why, len, "-maxit %s: expected an integer from 1 to 100000", arg), 2;
            *maxit = (int)v;
        } else {
            return snprintf(why, len, "unknown argument %s " USAGE, opt), 2;
        }
    }
    return 0;
}

/* Rows of this rank: diagonal 26, -1 to each of the up to 26 neighbours. */
static void fill_matrix(HYPRE_IJMatrix A, const struct layout *l)
{
    int n = l->n, gx = n * l->dims[0], gy = n * l->dims[1], gz = n * l->dims[2];
    HYPRE_BigInt cols[27];
    double vals[27];
    for (int k = 0; k < n; k++)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                int x = l->me[0] * n + i, y = l->me[1] * n + j, z = l->me[2] * n + k;
                HYPRE_BigInt row = row_of(l, x, y, z);
                HYPRE_Int count = 0;
                for (int dz = -1; dz <= 1; dz++)
                    for (int dy = -1; dy <= 1; dy++)
                        for (int dx = -1; dx <= 1; dx++) {
                            int a = x + dx, b = y + dy, c = z + dz;
                            if (a < 0 || b < 0 || c < 0 || a >= gx || b >= gy || c >= gz)
                                continue;
                            cols[count] = row_of(l, a, b, c);
                            vals[count] = (dx || dy || dz) ? -1.0 : 26.0;
                            count++;
                        }
                HYPRE_IJMatrixSetValues(A, 1, &count, &row, cols, vals);
            }
}

static HYPRE_IJVector new_vector(HYPRE_BigInt lo, HYPRE_BigInt hi, double value)
{
    HYPRE_IJVector v;
    HYPRE_IJVectorCreate(MPI_COMM_WORLD, lo, hi, &v);
    HYPRE_IJVectorSetObjectType(v, HYPRE_PARCSR);
    HYPRE_IJVectorInitialize(v);
    for (HYPRE_BigInt r = lo; r <= hi; r++)
        HYPRE_IJVectorSetValues(v, 1, &r, &value);
    HYPRE_IJVectorAssemble(v);
    return v;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, n = 30, maxit = 100;
    double tol = 1e-8;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char why[200];
    int bad = parse_args(argc, argv, &n, &tol, &maxit, why, sizeof why);
    /* This hypre numbers rows with HYPRE_BigInt (int in Debian's 32-bit
     * build): refuse a problem whose rows it cannot number. */
    long long rows = (long long)size * n * n * n;
    if (!bad && sizeof(HYPRE_BigInt) == sizeof(int) && rows > INT_MAX)
        bad = 2, snprintf(why, sizeof why, "-n %d on %d ranks: %lld rows, more than hypre's %d", n, size, rows,
                          INT_MAX);
    if (bad) {
        if (rank == 0)
            fprintf(stderr, "amg27: %s\n", why);
        MPI_Finalize();
        return bad;
    }
    HYPRE_Init();

    struct layout l = {.n = n, .dims = {0, 0, 0}};
    MPI_Dims_create(size, 3, l.dims);
    l.me[0] = rank % l.dims[0];
    l.me[1] = (rank / l.dims[0]) % l.dims[1];
    l.me[2] = rank / (l.dims[0] * l.dims[1]);
    HYPRE_BigInt lo = (HYPRE_BigInt)rank * n * n * n, hi = lo + (HYPRE_BigInt)n * n * n - 1;

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    HYPRE_IJMatrix A;
    HYPRE_IJMatrixCreate(MPI_COMM_WORLD, lo, hi, lo, hi, &A);
    HYPRE_IJMatrixSetObjectType(A, HYPRE_PARCSR);
    HYPRE_IJMatrixInitialize(A);
    fill_matrix(A, &l);
    HYPRE_IJMatrixAssemble(A);
    HYPRE_IJVector b = new_vector(lo, hi, 1.0), x = new_vector(lo, hi, 0.0);
    HYPRE_ParCSRMatrix pA;
    HYPRE_ParVector pb, px;
    HYPRE_IJMatrixGetObject(A, (void **)&pA);
    HYPRE_IJVectorGetObject(b, (void **)&pb);
    HYPRE_IJVectorGetObject(x, (void **)&px);

    /* One V-cycle per CG iteration; HMIS coarsening with extended+i
     * interpolation and l1 Gauss-Seidel: hypre's usual choice for 3-D
     * problems on many ranks (coarse grids stay sparse). */
    HYPRE_Solver amg, pcg;
    HYPRE_BoomerAMGCreate(&amg);
    HYPRE_BoomerAMGSetCoarsenType(amg, 10);
    HYPRE_BoomerAMGSetInterpType(amg, 6);
    HYPRE_BoomerAMGSetPMaxElmts(amg, 4);
    HYPRE_BoomerAMGSetStrongThreshold(amg, 0.25);
    HYPRE_BoomerAMGSetRelaxType(amg, 8);
    HYPRE_BoomerAMGSetNumSweeps(amg, 1);
    HYPRE_BoomerAMGSetTol(amg, 0.0);
    HYPRE_BoomerAMGSetMaxIter(amg, 1);
    HYPRE_BoomerAMGSetPrintLevel(amg, 0);
    HYPRE_ParCSRPCGCreate(MPI_COMM_WORLD, &pcg);
    HYPRE_PCGSetTol(pcg, tol);
    HYPRE_PCGSetMaxIter(pcg, maxit);
    HYPRE_PCGSetTwoNorm(pcg, 1);
    HYPRE_PCGSetPrecond(pcg, (HYPRE_PtrToSolverFcn)HYPRE_BoomerAMGSolve,
                        (HYPRE_PtrToSolverFcn)HYPRE_BoomerAMGSetup, amg);
    HYPRE_ParCSRPCGSetup(pcg, pA, pb, px);
    MPI_Barrier(MPI_COMM_WORLD);
    double t1 = MPI_Wtime();
    HYPRE_ParCSRPCGSolve(pcg, pA, pb, px);
    double t2 = MPI_Wtime();

    HYPRE_Int iters = 0;
    double resid = 0.0, mine[2] = {t1 - t0, t2 - t1}, slowest[2];
    HYPRE_PCGGetNumIterations(pcg, &iters);
    HYPRE_PCGGetFinalRelativeResidualNorm(pcg, &resid);
    MPI_Reduce(mine, slowest, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("amg27: 27-point Laplacian, %d^3 points per rank, %d ranks (%d x %d x %d), %lld rows\n",
               n, size, l.dims[0], l.dims[1], l.dims[2], rows);
        printf("amg27: setup %.6f s, solve %.6f s, %d iterations, relative residual %.3e\n",
               slowest[0], slowest[1], (int)iters, resid);
        printf("amg27: time %.6f s\n", slowest[0] + slowest[1]);
    }
    int converged = resid <= tol;
    HYPRE_ParCSRPCGDestroy(pcg);
    HYPRE_BoomerAMGDestroy(amg);
    HYPRE_IJMatrixDestroy(A);
    HYPRE_IJVectorDestroy(b);
    HYPRE_IJVectorDestroy(x);
    HYPRE_Finalize();
    MPI_Finalize();
    if (!converged && rank == 0)
        fprintf(stderr, "amg27: not converged to %g in %d iterations\n", tol, maxit);
    return converged ? 0 : 1;
}
