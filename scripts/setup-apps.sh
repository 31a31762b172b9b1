#!/usr/bin/env bash
# Real applications for `gpcnet study` (docs/studies.md): LAMMPS (an
# MPI-intensive molecular-dynamics code; input in apps/lammps) and HPCC
# (the HPC Challenge suite; its EP-STREAM/EP-DGEMM parts barely communicate).
# Debian 12 packages, installed non-interactively; checks the files used.
set -euo pipefail
need=()
[ -x /usr/bin/lmp ] || need+=(lammps)
[ -x /usr/bin/hpcc ] || need+=(hpcc)
if [ "${#need[@]}" -gt 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q </dev/null >/dev/null
    apt-get install -y -q --no-install-recommends "${need[@]}" </dev/null
fi
for f in /usr/bin/lmp /usr/bin/hpcc; do
    [ -x "$f" ] || { echo "setup-apps: $f missing after install" >&2; exit 1; }
done
echo "setup-apps: lammps $(dpkg-query -W -f='${Version}' lammps), hpcc $(dpkg-query -W -f='${Version}' hpcc)"
