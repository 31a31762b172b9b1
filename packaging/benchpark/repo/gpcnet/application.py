# Ramble application for GPCNeT (network_test and network_load_test), for
# Benchpark (copy this directory to <benchpark>/repo/gpcnet) or for Ramble
# alone (to <ramble repo>/applications/gpcnet). See docs/benchpark.md.
#
# Figures of merit are read from the tables both programs print (ours and
# the reference GPCNeT v1.3 print the same 80-column tables; --verbose ones
# are 140 columns). Every figure of merit lives in the context of the table
# it was read from (the table's title as printed):
#   "Isolated Network Tests"                                     <test> Avg, <test> 99%
#   "Network Tests running with Congestion Tests"                <test> Avg, <test> 99%
#   "Network Tests running with Congestion Tests - Key Results"  <test> Congestion Impact Avg/99%
# Latency rows are in usec, bandwidth rows in MiB/s/rank (the unit column
# of the row decides which figure of merit matches), impacts in X.
import json
import os
import re

from ramble.appkit import *  # noqa: F401,F403

_NUM = r"[-+]?\d+(?:\.\d+)?"
# One table row: the name, then the Avg and 99% columns; a --verbose row
# has Min and Max before Avg, Avg(Worst) between Avg and 99%, 99.9% after.
_ROW = (
    r"^\|\s*(?P<{name}>[^|]*?)\s*\|"
    r"(?:\s*" + _NUM + r"\s*\|\s*" + _NUM + r"\s*\|)?"
    r"\s*(?P<avg>" + _NUM + r")\s*\|"
    r"(?:\s*" + _NUM + r"\s*\|)?"
    r"\s*(?P<p99>" + _NUM + r")\s*\|"
    r"(?:\s*" + _NUM + r"\s*\|)?"
    r"\s*{unit}\s*\|\s*$"
)
LATENCY_ROW = _ROW.format(name="lat_test", unit="usec")
BANDWIDTH_ROW = _ROW.format(name="bw_test", unit="MiB/s/rank")
IMPACT_ROW = (
    r"^\|\s*(?P<canary>[^|]*?)\s*\|\s*(?P<avg>" + _NUM + r")X\s*\|"
    r"\s*(?P<p99>" + _NUM + r")X\s*\|\s*$"
)
# A table's title line: a single cell between two bars.
TITLE = r"^\|\s+(?P<table>[A-Z][^|]*?)\s+\|\s*$"
OFFICIAL = r"^\s+Settings \(official default configuration: (?P<official>yes|no)\b"

KEY_RESULTS = "Network Tests running with Congestion Tests - Key Results"
ISOLATED = "Isolated Network Tests"
# Canary tests of a run with the reference's defaults (it prints no Settings).
_DEFAULT_TESTS = {"network_test": 8, "network_load_test": 3}
_SETTING_TEST = re.compile(r"^   (?:rr|nat|multiple)_\w+ = \d+ measurements")
_JSON = re.compile(r"^   JSON = (?P<path>.+?)\s*$")


def _title(line):
    m = re.match(TITLE, line)
    return m.group("table") if m else None


def run_finished(text, run_dir=None):
    """True when `text` (a program's output) is that of a run that finished:
    its final table (network_test: Isolated Network Tests; network_load_test:
    Key Results) has a closed, numeric row for every canary test of the run,
    the last of --repeat N repetitions was reached, no ERROR line was
    printed, and, when the run names its JSON and it is found (relative to
    run_dir), that document's status is "complete"."""
    lines = text.splitlines()
    if not lines:
        return False
    if lines[0].startswith("NetworkLoad Tests"):
        program, final = "network_load_test", KEY_RESULTS
    elif lines[0].startswith("Network Tests"):
        program, final = "network_test", ISOLATED
    else:
        return False
    if any(line.startswith("ERROR") for line in lines):
        return False
    expected = sum(1 for line in lines if _SETTING_TEST.match(line)) or _DEFAULT_TESTS[program]
    # --repeat N: the last repetition reached, and its final table.
    last_rep, reps = -1, None
    for i, line in enumerate(lines):
        m = re.match(r"^Repetition (\d+) of (\d+)", line)
        if m:
            last_rep, reps = i, m
    if reps and reps.group(1) != reps.group(2):
        return False
    titles = [i for i, line in enumerate(lines) if i > last_rep and _title(line) == final]
    if not titles:
        return False
    patterns = [IMPACT_ROW] if final == KEY_RESULTS else [LATENCY_ROW, BANDWIDTH_ROW]
    rows, i = 0, titles[-1] + 1
    while i < len(lines) and _title(lines[i]) is None and lines[i].strip():
        if any(re.match(p, lines[i]) for p in patterns):
            # A finished row is followed by its closing border.
            if i + 1 >= len(lines) or not lines[i + 1].startswith("+-"):
                return False
            rows += 1
        i += 1
    if rows != expected:
        return False
    for line in lines:
        m = _JSON.match(line)
        if m and run_dir is not None:
            path = os.path.join(run_dir, m["path"])
            if os.path.isfile(path):
                try:
                    with open(path) as f:
                        return json.load(f).get("status") == "complete"
                except (OSError, ValueError):
                    return False
    return True


class Gpcnet(ExecutableApplication):
    """GPCNeT: Global Performance and Congestion Network Tests. Canary
    tests (latency, bandwidth, allreduce) measured in isolation and while
    congestor kernels load the network; the Congestion Impact is the ratio
    of the two."""

    name = "gpcnet"

    tags(
        "synthetic", "mpi", "c", "large-scale", "multi-node",
        "network-latency-bound", "network-bandwidth-bound", "network-collectives",
        "network-point-to-point", "network-onesided",
    )

    # Our package (packaging/spack, namespace gpcnet_project), not the
    # reference's: add that Spack repository first (docs/spack.md).
    with when("package_manager_family=spack"):
        software_spec("gpcnet", pkg_spec="gpcnet")
        required_package("gpcnet")

    executable(
        "network_test",
        "network_test --quiet --output-dir {experiment_run_dir} {gpcnet_options}",
        use_mpi=True,
        output_capture=OUTPUT_CAPTURE.ALL,
    )
    executable(
        "network_load_test",
        "network_load_test --quiet --output-dir {experiment_run_dir} {gpcnet_options}",
        use_mpi=True,
        output_capture=OUTPUT_CAPTURE.ALL,
    )
    workload("network_test", executables=["network_test"])
    workload("network_load_test", executables=["network_load_test"])

    workload_variable(
        "gpcnet_options",
        default="",
        description="extra options of the program (e.g. --verbose, --time-limit 10; "
        "see its --help); none keeps the published configuration",
        workloads=["network_test", "network_load_test"],
    )

    figure_of_merit_context("table", regex=TITLE, output_format="{table}")

    for _group, _pattern, _units in (
        ("lat_test", LATENCY_ROW, "usec"),
        ("bw_test", BANDWIDTH_ROW, "MiB/s/rank"),
    ):
        for _column, _label in (("avg", "Avg"), ("p99", "99%")):
            figure_of_merit(
                "{" + _group + "} " + _label,
                fom_regex=_pattern,
                group_name=_column,
                units=_units,
                contexts=["table"],
            )
    for _column, _label in (("avg", "Avg"), ("p99", "99%")):
        figure_of_merit(
            "{canary} Congestion Impact " + _label,
            fom_regex=IMPACT_ROW,
            group_name=_column,
            units="X",
            contexts=["table"],
        )
    del _group, _pattern, _units, _column, _label
    figure_of_merit(
        "Official default configuration", fom_regex=OFFICIAL, group_name="official", units=""
    )

    # A run that did not finish (killed, --deadline, MPI failure, too few
    # nodes) fails: its final table is missing or short of rows.
    success_criteria("finished", mode="application_function")

    def evaluate_success(self):
        log = self.expander.expand_var("{log_file}")
        try:
            with open(log) as f:
                text = f.read()
        except OSError:
            return False
        return run_finished(text, os.path.dirname(log))
