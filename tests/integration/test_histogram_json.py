"""The histogram a real run writes: 64 bins per power of two merged from the
1024 it measures with, and percentiles that fall inside the bin the
reference's counting rule picks (the floor(q N)-th sample from the good
end)."""
import math

import pytest


@pytest.fixture(scope="module")
def doc(harness, tmp_path_factory):
    out = tmp_path_factory.mktemp("hist")
    p = harness.run(4, "network_test", "--emulate-nodes", "1", "--tests",
                    "rr_two_sided_lat,rr_two_sided_bw,multiple_allreduce", *harness.QUICK,
                    "--output-dir", out)
    assert p.returncode == 0, p.stdout + p.stderr
    return harness.load_json(out / "network_test.json")


def _bin_of_kth(bins, k, from_high):
    seen = 0
    for lo, hi, count in (reversed(bins) if from_high else bins):
        seen += count
        if seen >= k:
            return lo, hi
    raise AssertionError("k beyond the samples")


def test_bins_are_64ths_of_a_power_of_two(doc):
    for row in doc["tables"][0]["rows"]:
        h = row["histogram"]
        assert h["sub_buckets"] == 64 and h["max_relative_error"] == 1 / 128
        assert h["percentile_sub_buckets"] == 1024 and h["percentile_max_relative_error"] == 1 / 1024
        for lo, hi, _ in h["bins"]:
            if 2.0 ** -10 <= lo < 2.0 ** 30:
                e = math.floor(math.log2(lo))
                sub = (lo / 2.0 ** e - 1) * 64
                assert sub == int(sub), (lo, hi)
                assert hi == pytest.approx(lo + 2.0 ** e / 64, rel=1e-15)


def test_percentiles_lie_in_the_bin_of_their_sample(doc):
    for row in doc["tables"][0]["rows"]:
        bins, n = row["histogram"]["bins"], row["samples"]
        from_high = row["better"] == "higher"
        for q, key in ((0.99, "p99"), (0.999, "p999")):
            lo, hi = _bin_of_kth(bins, max(1, math.floor(q * n)), from_high)
            assert lo <= row[key] <= hi, (row["test"], key, row[key], lo, hi)
        lo, hi = _bin_of_kth(bins, max(1, math.floor(0.5 * n)), False)
        assert lo <= row["median"] <= hi, (row["test"], row["median"], lo, hi)


def test_every_sample_reaches_the_merged_bins(doc):
    """The reduction carries only the span of bins some rank uses: a bin
    lost on the way would leave the counts short of the samples."""
    for row in doc["tables"][0]["rows"]:
        assert sum(count for _, _, count in row["histogram"]["bins"]) == row["samples"], row["test"]
