#!/usr/bin/env bash
# Install what `gpcnet testbed` needs on Debian 12: iproute2 and util-linux
# (nsenter, unshare), the pyroute2 Python library, and for `up --slurm`
# Debian's Slurm (slurmctld, slurmd, slurm-client) and munge, and for
# `gpcnet testbed run --mpi mpich` MPICH as the MPICH team publishes it on
# PyPI (the `mpich` wheel, with the ch4:ofi device Debian's MPICH lacks),
# under $GPCNET_MPICH_PREFIX (default /opt/gpcnet-mpich). Safe to run
# again; never asks anything. The Slurm and munge services Debian may start
# are not used: the testbed runs its own daemons inside its namespaces.
set -euo pipefail
APT_WHO=setup-testbed
. "$(dirname "${BASH_SOURCE[0]}")/apt-lib.sh"

need=()
command -v ip >/dev/null 2>&1 || need+=(iproute2)
command -v nsenter >/dev/null 2>&1 || need+=(util-linux)
[ -x /usr/sbin/slurmctld ] || need+=(slurmctld)
[ -x /usr/sbin/slurmd ] || need+=(slurmd)
command -v sbatch >/dev/null 2>&1 || need+=(slurm-client)
{ [ -x /usr/sbin/munged ] && command -v mungekey >/dev/null 2>&1; } || need+=(munge)
if [ ${#need[@]} -gt 0 ]; then
    apt_install "${need[@]}"
fi
if ! python3 -c "import pyroute2" 2>/dev/null; then
    echo "setup-testbed: installing pyroute2"
    python3 -m pip install --quiet pyroute2 </dev/null 2>/dev/null ||
        python3 -m pip install --quiet --break-system-packages pyroute2 </dev/null
fi

# MPICH for the testbed. Debian's MPICH has only ch4:ucx, whose
# MPI_Finalize deadlocks now and then over TCP (docs/testbed.md#mpich);
# this build also has ch4:ofi. Checked by what is used: its Hydra, its
# compiler wrapper and an ofi-capable library.
MPICH_VERSION=5.0.2
prefix="${GPCNET_MPICH_PREFIX:-/opt/gpcnet-mpich}"
mpich_ok() {
    local about
    [ -x "$prefix/bin/mpiexec.hydra" ] && [ -x "$prefix/bin/mpicc" ] &&
        [ -f "$prefix/lib/libmpi.so.12" ] &&
        about="$("$prefix/bin/mpichversion" 2>/dev/null)" &&
        grep -q "^MPICH Version: *$MPICH_VERSION\$" <<<"$about" &&
        grep -q '^MPICH Device:.*ofi' <<<"$about"
}
if ! mpich_ok && [ "$(id -u)" -ne 0 ]; then
    # Only root runs the testbed (namespaces); its tests skip for others.
    echo "setup-testbed: not root: MPICH for the testbed not installed under $prefix (the testbed needs root)"
elif ! mpich_ok; then
    echo "setup-testbed: installing MPICH $MPICH_VERSION (PyPI wheel 'mpich') under $prefix"
    [ ! -L "$prefix" ] || { echo "setup-testbed: $prefix is a symbolic link; refusing to install through it" >&2; exit 1; }
    # DEB_PYTHON_INSTALL_LAYOUT=deb: Debian's own Python would otherwise put
    # a --prefix install under "$prefix/local" (other Pythons ignore it).
    export DEB_PYTHON_INSTALL_LAYOUT=deb
    python3 -m pip install --quiet --no-deps --ignore-installed --prefix "$prefix" "mpich==$MPICH_VERSION" </dev/null 2>/dev/null ||
        python3 -m pip install --quiet --no-deps --ignore-installed --break-system-packages --prefix "$prefix" "mpich==$MPICH_VERSION" </dev/null
    mpich_ok || { echo "setup-testbed: MPICH under $prefix is not usable (no ofi device or files missing)" >&2; exit 1; }
fi
