"""Malformed options and values, end to end (catalogue section A).

Every case: exit status 2, the message exactly once (rank 0 only), the
pointer to --help exactly once (not the whole usage), every rank gone,
nothing written to the output directory. The C unit test tests/unit/test_options.c checks the parser
itself; tests/fuzz/fuzz_options.c checks that nothing else can get through.
"""
import pytest

from relsupport import FAST_FAIL

NET = "network_test"
LOAD = "network_load_test"
LONG_NAME = "--" + "x" * 100

CASES = [
    # id, program, args, needle in the message
    ("unknown-option", NET, ["--bogus"], "unknown option '--bogus'"),
    ("single-dash", LOAD, ["-x"], "unknown option '-x'"),
    ("positional-argument", NET, ["results.json"], "unexpected argument 'results.json'"),
    ("overlong-option-name", NET, [LONG_NAME], "unknown option '--xxxxxxxx"),
    ("missing-value-at-end", LOAD, ["--measurements"], "--measurements needs a value"),
    ("value-is-an-option", NET, ["--time-limit", "--verbose"], "--time-limit needs a value"),
    ("non-numeric", NET, ["--time-limit", "soon"], "--time-limit: expected a number"),
    ("empty-value", NET, ["--time-limit="], "--time-limit: expected a number"),
    ("zero-time-limit", LOAD, ["--time-limit", "0"], "--time-limit: expected a number > 0"),
    ("negative-time-limit", NET, ["--time-limit", "-1"], "--time-limit: expected a number > 0"),
    ("nan", NET, ["--time-limit", "nan"], "--time-limit: expected a number"),
    ("infinity", NET, ["--time-limit=inf"], "--time-limit: expected a number"),
    ("float-overflow", NET, ["--time-limit", "1e999"], "--time-limit: expected a number"),
    ("time-limit-over-a-day", NET, ["--time-limit", "86401"], "<= 86400"),
    ("trailing-junk", NET, ["--measurements", "10x"], "--measurements: expected a whole number"),
    ("fraction-for-count", NET, ["--iterations", "1.5"], "--iterations: expected a whole number"),
    ("hex-count", NET, ["--iterations", "0x10"], "--iterations: expected a whole number"),
    ("integer-overflow", NET, ["--measurements", "99999999999999999999"],
     "--measurements: expected a whole number"),
    ("zero-rings", NET, ["--rings", "0"], "--rings: expected a whole number from 1"),
    ("negative-warmup", NET, ["--warmup=-1"], "--warmup: expected a whole number from 0"),
    ("zero-nics", NET, ["--nics-per-node", "0"], "--nics-per-node: expected a whole number from 1"),
    ("zero-emulated-ppn", NET, ["--emulate-nodes", "0"], "--emulate-nodes: expected a whole number"),
    ("both-emulations", NET, ["--emulate-nodes", "1", "--emulate-node-count", "2"],
     "exclude each other"),
    ("flag-with-value", NET, ["--verbose=yes"], "--verbose takes no value"),
    ("unknown-test", NET, ["--tests", "rr_nope"], "unknown name 'rr_nope'"),
    ("empty-test-list", NET, ["--tests", ""], "expected a comma-separated list"),
    ("lone-comma", NET, ["--tests", ","], "expected a comma-separated list"),
    ("trailing-comma", LOAD, ["--tests", "rr_two_sided_lat,"], "expected a comma-separated list"),
    ("duplicate-test", NET, ["--tests", "rr_get_lat,rr-get-lat"], "'rr_get_lat' is listed twice"),
    ("weight-on-a-test", NET, ["--tests", "rr_get_lat:2"], "weights (name:N) are not accepted"),
    ("load-option-on-network-test", NET, ["--congestors", "a2a"],
     "--congestors applies to network_load_test and network_congestor only"),
    ("zero-weight", LOAD, ["--congestors", "a2a:0"], "expected a whole number from 1 to 64"),
    ("weight-too-big", LOAD, ["--congestors", "a2a:65"], "expected a whole number from 1 to 64"),
    ("junk-weight", LOAD, ["--congestors", "a2a:x"], "expected a whole number from 1 to 64"),
    ("empty-weight", LOAD, ["--congestors", "a2a:"], "bad weight in 'a2a:'"),
    ("unknown-congestor", LOAD, ["--congestors", "a2a,nope"], "unknown name 'nope'"),
    ("negative-seed", LOAD, ["--seed", "-1"], "--seed: expected a whole number from 0"),
    ("seed-too-big", LOAD, ["--seed", "2147483648"], "--seed: expected a whole number"),
    ("ring-seed-junk", NET, ["--ring-seed", "abc"], "--ring-seed: expected a whole number"),
    ("canary-fraction-zero", LOAD, ["--canary-fraction", "0"], "--canary-fraction: expected a number > 0"),
    ("canary-fraction-too-big", LOAD, ["--canary-fraction", "0.95"], "and <= 0.9"),
    ("canary-fraction-tiny", LOAD, ["--canary-fraction", "1e-300"],
     "--canary-fraction: 1e-300 leaves fewer than 2 canary nodes on any job of up to 999999 nodes"),
    ("hex-duration", NET, ["--time-limit", "0x10"], "--time-limit: expected a number > 0"),
    ("hex-float", LOAD, ["--canary-fraction", "0x1p-2"], "--canary-fraction: expected a number"),
    ("blank-before-number", NET, ["--time-limit", " 5"], "--time-limit: expected a number > 0"),
    ("blank-before-count", NET, ["--measurements", " 5"], "--measurements: expected a whole number"),
    ("infinity-word", NET, ["--time-limit", "infinity"], "--time-limit: expected a number > 0"),
    ("zero-deadline", NET, ["--deadline", "0"], "--deadline: expected a number > 0"),
    ("fault-probe-without-deadline", LOAD, ["--fault-probe", "2"],
     "--fault-probe needs --deadline (the probe runs SEC seconds before it)"),
    ("fault-probe-past-deadline", NET, ["--deadline", "5", "--fault-probe", "5"],
     "--fault-probe 5 must be shorter than --deadline 5"),
    ("fault-probe-too-short", NET, ["--deadline", "5", "--fault-probe", "0.1"],
     "--fault-probe: expected a number >= 0.5"),
    ("empty-json-path", NET, ["--json", ""], "--json: expected a path, got an empty string"),
    ("overlong-output-dir", NET, ["--output-dir", "/tmp/" + "d" * 5000], "--output-dir: path is too long"),
]


@pytest.mark.parametrize("program,args,needle", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_malformed_option_exits_2(harness, tmp_path, program, args, needle):
    out = tmp_path / "out"
    out.mkdir()
    p = harness.run(2, program, *args, "--output-dir", out, env=FAST_FAIL)
    assert p.returncode == 2, p.stderr[-2000:]
    assert p.stderr.count(needle) == 1, p.stderr[-2000:]
    assert p.stderr.count(f"See '{program} --help' for the options.") == 1
    assert "Usage: mpirun" not in p.stderr
    assert p.stdout == ""
    assert list(out.iterdir()) == []


@pytest.mark.parametrize("args,stream,needle", [
    (["--help"], "stdout", "Usage: mpirun"),
    (["--version"], "stdout", "(GPCNeT)"),
    (["--help", "--time-limit", "5"], "stdout", "Usage: mpirun"),
], ids=["help", "version", "help-with-valid-options"])
def test_help_and_version_exit_0_without_running(harness, tmp_path, args, stream, needle):
    p = harness.run(2, LOAD, *args, "--output-dir", tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    assert getattr(p, stream).count(needle) == 1
    assert list(tmp_path.iterdir()) == []
