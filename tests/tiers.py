"""The test tiers (scripts/test.sh, docs/reliability.md#test-tiers), said
in one place: which tests the quick tier runs, which only the whole suite
runs, and which run again under every MPI implementation and build.
Registered by every conftest through process_guard.register; a test may
also carry the marks itself.

- quick: the representative Open MPI integration subset of
  `scripts/test.sh --quick` (the whole suite runs every test);
- full_only: left out of `--quick` (needs the browser, the testbed,
  applications, or minutes of work);
- every_build: exercises what differs between MPI implementations and
  builds (start-up and exit paths, one-sided windows, signals and faults,
  the kernel catalogue): run again under MPICH and on the ASan+UBSan build
  by scripts/test-reliability.sh, where the other tests are not repeated
  (the logic they check is the same code whatever the MPI).

Entries are paths below tests/, optionally with ::test_name (all its
parameters).
"""
from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent

MARKS = {
    "quick": "in the representative integration subset of scripts/test.sh --quick",
    "full_only": "left out of scripts/test.sh --quick (browser, testbed, applications or minutes)",
    "every_build": "run under every MPI implementation and build (scripts/test-reliability.sh)",
}

# One run of each program (all 8 isolated tests; the 3 canaries beside the
# 4 congestors), exit paths, one-sided windows, the catalogue, bursts.
QUICK = [
    "integration/test_network_test.py::test_all_eight_tests_in_order_in_80_columns",
    "integration/test_network_test.py::test_json_matches_text_to_printed_precision",
    "integration/test_network_test.py::test_statistics_are_consistent",
    "integration/test_network_test.py::test_settings_are_reported",
    "integration/test_load_test.py::test_three_tables_in_80_columns",
    "integration/test_load_test.py::test_json_matches_text_and_impact_arithmetic",
    "integration/test_load_test.py::test_congestors_really_moved_bytes",
    "integration/test_load_test.py::test_placement_and_node_lists",
    "integration/test_errors.py::test_network_test_needs_two_nodes",
    "integration/test_errors.py::test_bad_usage_exits_2_with_usage_once",
    "integration/test_errors.py::test_help_and_version",
    "integration/test_errors.py::test_existing_results_need_force",
    "integration/test_rma_window.py",
    "integration/test_kernel_catalog.py",
    "integration/test_histogram_json.py",
    "integration/test_load_sync.py",
    "integration/test_source_layout.py",
    "integration/test_bursts.py::test_network_congestor_bursts",
]

FULL_ONLY = [
    "python/test_browser.py",          # headless Chromium
    "python/test_study_browser.py",
    "docs/test_testbed_study_ratio.py",  # a study on the testbed
    # venvs made and pip installs (the first test of test_suite_venv.py stays quick)
    "python/test_suite_venv.py::test_a_changed_pyproject_or_a_moved_checkout_installs_again",
    "python/test_suite_venv.py::test_a_python_without_venv_falls_back_to_debians_with_python3_venv_installed",
    # a 381 MB results document read by every command (minutes, 1-2 GB)
    "security/test_machine_scale.py::test_the_largest_machines_document_is_read_by_every_command",
]

EVERY_BUILD = [
    # start-up, all kernels (one-sided included), exit paths of the launchers
    "integration/test_network_test.py",
    "integration/test_load_test.py::test_three_tables_in_80_columns",
    "integration/test_load_test.py::test_json_matches_text_and_impact_arithmetic",
    "integration/test_load_test.py::test_congestors_really_moved_bytes",
    "integration/test_load_test.py::test_placement_and_node_lists",
    "integration/test_load_test.py::test_uneven_ppn_load_test",
    "integration/test_errors.py",
    "integration/test_rma_window.py",
    "integration/test_load_sync.py",
    "integration/test_canary_params.py",
    # the catalogue: every kernel, extras included
    "integration/test_kernel_catalog.py",
    "integration/test_extra_kernels.py",
    # what the MPI's progress changes: pacing of collectives, the agreement
    # of --converge, the node probe's timing of a delayed node
    "integration/test_burst_pacing.py",
    "integration/test_converge.py::test_one_iteration_loops_on_ten_nodes_end",
    "integration/test_node_probe.py",
    # the all-pairs shifts: a barrier per repetition, round trips answered
    # through MPI_Waitany while the node's own is in flight
    "integration/test_all_pairs.py",
    # gpcnet-bind reads each launcher's local rank; a NIC refused at start-up
    "integration/test_nic_results.py::test_every_rank_records_its_nic_round_robin",
    "integration/test_nic_results.py::test_a_nic_the_host_lacks_is_refused_before_measuring",
    # signals, deadlines, faults, lost ranks, oversubscription
    "reliability/test_interrupts.py",
    "reliability/test_deadline.py",
    "reliability/test_fault_probe.py",
    "reliability/test_congestor.py",
    "reliability/test_congestor_ranks.py",
    "reliability/test_oversubscription.py",
    # roles from an MPMD launch: MPI_APPNUM and per-application environments
    # are the launcher's (Open MPI's -x, Hydra's -env)
    "integration/test_launch_roles.py",
    # how nodes are found (MPI_Comm_split_type) and how every rank exits
    "reliability/test_nodes.py",
    "reliability/test_bad_options.py",
]
# The rest of tests/reliability (the C programs' file handling, the JSON
# after every phase, the scale tools) is the same code whatever the MPI:
# it runs whole on the ASan+UBSan build, where its error paths are checked.

_LISTS = {"quick": QUICK, "full_only": FULL_ONLY, "every_build": EVERY_BUILD}


def _key(item) -> str:
    try:
        rel = Path(str(item.path)).resolve().relative_to(TESTS).as_posix()
    except ValueError:
        return ""
    return f"{rel}::{getattr(item, 'originalname', item.name)}"


def listed(key: str, entries) -> bool:
    return any(key == e or ("::" not in e and key.startswith(e + "::")) for e in entries)


class TierMarks:
    def pytest_collection_modifyitems(self, config, items):
        import pytest
        for item in items:
            key = _key(item)
            for mark, entries in _LISTS.items():
                if listed(key, entries):
                    item.add_marker(getattr(pytest.mark, mark))


def register(config) -> None:
    for name, what in MARKS.items():
        config.addinivalue_line("markers", f"{name}: {what}")
    if not config.pluginmanager.has_plugin("gpcnet-tiers"):
        config.pluginmanager.register(TierMarks(), "gpcnet-tiers")
