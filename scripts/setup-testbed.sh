#!/usr/bin/env bash
# Install what `gpcnet testbed` needs on Debian 12: iproute2 and util-linux
# (nsenter, unshare), the pyroute2 Python library, and for `up --slurm`
# Debian's Slurm (slurmctld, slurmd, slurm-client) and munge. Safe to run
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
