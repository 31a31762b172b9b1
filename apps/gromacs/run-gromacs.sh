#!/bin/sh
# GROMACS under `gpcnet study` (docs/studies.md): an SPC water box with PME
# electrostatics, each step a distributed 3-D FFT (all-to-all transposes).
# Every rank builds the same run input in a fresh temporary directory
# (gmx solvate and gmx grompp, serial, deterministic: a fixed seed), so no
# rank waits for a shared file; then all ranks run gmx_mpi mdrun and rank 0
# prints mdrun's timing lines, e.g. for --fom-regex
# 'Time: +[0-9.]+ +([0-9.]+)' (mdrun's wall seconds) or
# 'Performance: +([0-9.]+)' (ns/day).
# Size: GMX_BOX (cube edge in nm, default 4: about 2,100 waters) and
# GMX_NSTEPS (default: the 500 of grompp.mdp).
here=$(cd "$(dirname "$0")" && pwd)
box=${GMX_BOX:-4}
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-${SLURM_PROCID:-0}}}
dir=$(mktemp -d "${TMPDIR:-/tmp}/gpcnet-gromacs.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
cp "$here/topol.top" "$here/grompp.mdp" "$dir/" || exit 1
cd "$dir" || exit 1
# GROMACS would otherwise keep numbered backups of what it overwrites.
export GMX_MAXBACKUP=-1
{ gmx -quiet solvate -cs spc216.gro -box "$box" "$box" "$box" -p topol.top -o conf.gro &&
  gmx -quiet grompp -f grompp.mdp -c conf.gro -p topol.top -o topol.tpr; } >prep.log 2>&1 ||
    { echo "run-gromacs: preparing the input failed (rank $rank):" >&2; tail -n 20 prep.log >&2; exit 1; }
steps=
[ -n "$GMX_NSTEPS" ] && steps="-nsteps $GMX_NSTEPS"
# One thread per rank (the launcher places the ranks); no PME grid tuning
# during the run, so every run does the same work.
gmx_mpi -quiet mdrun -s topol.tpr -ntomp 1 -notunepme $steps
rc=$?
if [ "$rank" = 0 ] && [ -f md.log ]; then
    grep -E '^ *(Time|Performance):' md.log
fi
exit $rc
