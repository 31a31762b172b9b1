#!/usr/bin/env bash
# Install what building and running GPCNeT needs on Debian 12: a C compiler,
# CMake and an MPI library (Open MPI from Debian, unless an mpicc is already
# there), and Python 3. Safe to run again; never asks anything. With
# --python it also sets up the gpcnet analysis tool and its test
# dependencies in the first python3 on PATH, yours (--python-quick: without
# the browser and the testbed). scripts/test.sh runs it without --python:
# the tests install the tool into a venv of their own (scripts/venv-lib.sh).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
APT_WHO=setup
. "$(dirname "${BASH_SOURCE[0]}")/apt-lib.sh"

need=()
command -v cc >/dev/null 2>&1 || need+=(gcc libc6-dev)
command -v make >/dev/null 2>&1 || need+=(make)
command -v cmake >/dev/null 2>&1 || need+=(cmake)
if ! command -v mpicc >/dev/null 2>&1 || ! command -v mpirun >/dev/null 2>&1; then
    need+=(openmpi-bin libopenmpi-dev)
fi
command -v python3 >/dev/null 2>&1 || need+=(python3)
if [ ${#need[@]} -gt 0 ]; then
    apt_install "${need[@]}"
fi

case "${1:-}" in
    --python) bash "$repo/scripts/setup-python.sh" ;;
    --python-quick) bash "$repo/scripts/setup-python.sh" --quick ;;
esac
