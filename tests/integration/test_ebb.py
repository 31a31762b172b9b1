"""network_test --ebb MATCHINGS (docs/method.md#effective-bisection-bandwidth):
the matchings it draws are the ones computed independently from the seed
(gpcnet/testbed/ebb_model.py), every node is paired exactly once, the
values of the table and the JSON follow from the pairs' values, --link-rate
gives the fraction, an odd node count is refused with one line and exit 2,
and without the option nothing printed or recorded changes."""
import re

import pytest

from gpcnet.testbed.ebb_model import matching_partners

MIB = 1024.0 * 1024.0


def run_ebb(harness, tmp_path, n_nodes, *extra):
    p = harness.run(n_nodes, "network_test", "--emulate-nodes", "1", *harness.QUICK,
                    "--tests", "rr_two_sided_lat", *extra, "--output-dir", tmp_path)
    return p


def test_matchings_values_and_fraction(harness, tmp_path):
    p = run_ebb(harness, tmp_path, 6, "--ebb", "5", "--ebb-bytes", "65536", "--ring-seed", "77",
                "--link-rate", "10")
    assert p.returncode == 0, p.stderr[-2000:]
    doc = harness.load_json(tmp_path / "network_test.json")
    validate = harness.schema_validator()
    if validate:
        validate(doc)
    e = doc["ebb"]
    assert (e["matchings"], e["nodes"], e["bytes"], e["seed"]) == (5, 6, 65536, 77)
    assert len(e["node_names"]) == 6 and all(e["node_names"])
    means = []
    for m, per in enumerate(e["per_matching"]):
        partner = matching_partners(77, m, 6)
        # the same pairs as computed here, lower node first, in node order
        assert [(q["a"], q["b"]) for q in per["pairs"]] == \
            [(a, b) for a, b in enumerate(partner) if a < b]
        nodes = sorted([q["a"] for q in per["pairs"]] + [q["b"] for q in per["pairs"]])
        assert nodes == list(range(6))
        v = [q["mib_s"] for q in per["pairs"]]
        assert all(x > 0 for x in v)
        assert per["mean_mib_s"] == pytest.approx(sum(v) / len(v))
        assert (per["min_mib_s"], per["max_mib_s"]) == (min(v), max(v))
        means.append(per["mean_mib_s"])
    assert e["mean_mib_s"] == pytest.approx(sum(means) / len(means))
    assert (e["min_mib_s"], e["max_mib_s"]) == (min(means), max(means))
    assert e["link_rate_gbit"] == 10
    assert e["fraction"] == pytest.approx(e["mean_mib_s"] / (10e9 / 8 / MIB))
    assert doc["phases"][-1]["name"] == "ebb"
    # The table: a row per matching, the mean, the fraction; 80 columns.
    table = p.stdout[p.stdout.index("Effective Bisection Bandwidth (65536 B each way)"):]
    rows = re.findall(r"^\| +(Matching \d+|eBB[^|]*?) \| +([0-9.]+) \|", table, re.M)
    assert [r[0] for r in rows] == [f"Matching {i}" for i in range(1, 6)] + [
        "eBB (mean of the matchings)", "eBB / link rate"]
    assert float(rows[5][1]) == pytest.approx(e["mean_mib_s"], abs=0.051)
    assert float(rows[6][1]) == pytest.approx(e["fraction"], abs=0.00051)
    assert all(len(l) == 80 for l in table.splitlines()[:20] if l.startswith(("|", "+")))


def test_without_a_link_rate_there_is_no_fraction(harness, tmp_path):
    p = run_ebb(harness, tmp_path, 2, "--ebb", "2", "--ebb-bytes", "4096")
    assert p.returncode == 0, p.stderr[-2000:]
    e = harness.load_json(tmp_path / "network_test.json")["ebb"]
    assert e["link_rate_gbit"] is None and e["fraction"] is None
    assert [[(q["a"], q["b"]) for q in per["pairs"]] for per in e["per_matching"]] == [[(0, 1)]] * 2
    assert "eBB / link rate" not in p.stdout


def test_an_odd_node_count_is_refused(harness, tmp_path):
    p = run_ebb(harness, tmp_path, 3, "--ebb", "4")
    assert p.returncode == 2
    lines = [l for l in p.stderr.splitlines() if l.startswith("network_test:")]
    assert lines == ["network_test: --ebb pairs every node with another and needs an even "
                     "number of nodes, found 3; run on 2 or 4 nodes, or leave --ebb out."]
    assert "Traceback" not in p.stderr
    assert not (tmp_path / "network_test.json").exists()


def test_more_pairs_than_a_document_holds_are_refused(harness, tmp_path):
    # 100,000 matchings of 8 nodes: 400,000 pairs (src/suite/network_test/ebb.h EBB_MAX_PAIRS)
    p = run_ebb(harness, tmp_path, 8, "--ebb", "100000")
    assert p.returncode == 2
    lines = [l for l in p.stderr.splitlines() if l.startswith("network_test:")]
    assert lines == ["network_test: --ebb 100000 on 8 nodes would record 400000 pairs, more than "
                     "a results document holds (300000); use --ebb 75000 or fewer."]
    assert not (tmp_path / "network_test.json").exists()


@pytest.mark.parametrize("args, text", [
    (["--ebb", "0"], "--ebb"), (["--ebb-bytes", "0"], "--ebb-bytes"),
    (["--link-rate", "-1"], "--link-rate"), (["--link-rate", "fast"], "--link-rate")])
def test_bad_values_are_usage_errors(harness, tmp_path, args, text):
    p = run_ebb(harness, tmp_path, 2, *args)
    assert p.returncode == 2
    assert text in p.stderr


def masked(stdout):
    lines = [l for l in stdout.splitlines()
             if "results written to" not in l and not l.startswith("   JSON = ")]
    return [re.sub(r" *[0-9]+(\.[0-9]+)?", " #", l) for l in lines]


def test_without_the_option_nothing_changes(harness, tmp_path):
    runs = {}
    for label, extra in (("plain", []), ("ebb", ["--ebb", "2", "--ebb-bytes", "4096"])):
        p = run_ebb(harness, tmp_path / label, 4, *extra)
        assert p.returncode == 0, p.stderr[-2000:]
        runs[label] = (p.stdout, harness.load_json(tmp_path / label / "network_test.json"))
    (plain_out, plain), (ebb_out, ebb) = runs["plain"], runs["ebb"]
    assert "ebb" not in plain and "Effective Bisection" not in plain_out
    # the eBB table is added after the published ones; every other line stays
    lines = ebb_out.splitlines()
    top = lines.index(next(l for l in lines if "Effective Bisection" in l)) - 2
    end = top + 6 + 2 * 3  # blank, bar, title, bar, header, bar; 3 rows of 2 lines
    assert lines[top] == "" and lines[end - 1].startswith("+---")
    assert masked("\n".join(lines[:top] + lines[end:])) == masked(plain_out)
    assert [ph["name"] for ph in ebb["phases"]] == [ph["name"] for ph in plain["phases"]] + ["ebb"]
