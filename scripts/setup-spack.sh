#!/usr/bin/env bash
# Make a Spack checkout ready to build GPCNeT with what this machine already
# has: the concretizer (clingo from PyPI, when Spack cannot bootstrap it
# because the machine has no route to Spack's mirrors), the system compilers,
# and the system MPI, CMake and make as externals (MPI is never built).
#
#   scripts/setup-spack.sh [SPACK_ROOT]
#
# SPACK_ROOT: a checkout of Spack >= 0.21 (default: $GPCNET_SPACK_ROOT, else
# /opt/spack). For Spack >= 1.0 without network, $GPCNET_SPACK_PACKAGES (or
# <SPACK_ROOT>-packages) names a local checkout of spack-packages used as the
# builtin repository. Settings go to the checkout's site scope, not to
# ~/.spack (Spack still keeps its package index cache in ~/.spack/cache, or
# in $SPACK_USER_CACHE_PATH). Safe to run again. Exit 3 when there is no
# checkout.
set -euo pipefail

root="${1:-${GPCNET_SPACK_ROOT:-/opt/spack}}"
if [ ! -x "$root/bin/spack" ]; then
    cat >&2 <<MSG
setup-spack: no Spack checkout at $root (bin/spack missing).
Get one, e.g.
  git clone --depth 1 --branch v1.1.0 https://github.com/spack/spack $root
and for Spack >= 1.0 on a machine without network also
  git clone --depth 1 --branch v2025.11.0 https://github.com/spack/spack-packages ${root}-packages
then run this script again (or set GPCNET_SPACK_ROOT).
MSG
    exit 3
fi
spack="$root/bin/spack"

# Spack runs on the first python3 on PATH; clingo must import there.
if ! python3 -c 'import clingo' 2>/dev/null; then
    echo "setup-spack: installing clingo (Spack's concretizer) from PyPI"
    python3 -m pip install --quiet clingo </dev/null 2>/dev/null \
        || python3 -m pip install --quiet --break-system-packages clingo </dev/null
fi

# The checkout's site scope (etc/spack/site since Spack 1.0, etc/spack before).
site="$(dirname "$("$spack" config --scope site edit --print-file packages)")"
mkdir -p "$site"

# Spack >= 1.0 keeps its packages in a separate repository that it clones
# on first use; point it at a local checkout when there is one.
packages="${GPCNET_SPACK_PACKAGES:-${root}-packages}"
if [ -f "$root/etc/spack/defaults/base/repos.yaml" ] \
   && [ -f "$packages/repos/spack_repo/builtin/repo.yaml" ] \
   && [ ! -f "$site/repos.yaml" ]; then
    printf 'repos::\n  builtin: %s\n' "$packages/repos/spack_repo/builtin" > "$site/repos.yaml"
    echo "setup-spack: builtin packages from $packages"
fi

if ! grep -qs 'openmpi:\|mpich:' "$site/packages.yaml"; then
    "$spack" compiler find --scope site >/dev/null
    # MPI from the system only: never build one from source.
    "$spack" external find --scope site --not-buildable openmpi mpich >/dev/null
    "$spack" external find --scope site cmake gmake >/dev/null
    "$spack" config --scope site add 'packages:mpi:buildable:false'
fi
echo "setup-spack: $("$spack" --version) at $root ready (site config: $site)"
