"""A degraded link named by the all-pairs matrix (network_test --all-pairs,
docs/method.md#all-pairs): one host's data link cut to 0.25 % of its rate
(`gpcnet testbed fault degrade --percent 0.25`), the matrix measured across
6 hosts: every pair through that link is slower than every other, and the
report names that host, sending and receiving, and no pair. The host is the
one the fault was set on; no threshold on the values beyond the outlier rule.

Why 6 hosts and 0.25 %: the degraded pairs run at the link's cut rate
whatever the load, the healthy ones as fast as the 2 CPUs move them. Beside
CI's other lane the healthy cells fell to 16-62 MiB/s; at 4 hosts and 1 %
(1-2 MiB/s) the rule, judging each node among 4, missed the degraded host's
row or column in a CI run and in 2 runs of 2 under two busy loops, and at
0.25 % one cell of 965 MiB/s once hid it whole. At 6 hosts and 0.25 %,
under two busy loops, its row and column stood out in 3 runs of 3 (z -11
to -105 against the cut-off -3.5; reliability.md Q10).

node01, rank 0's host, may be named beside it, by its column only: under
load it received slowest in every run here (19-21 MiB/s against 31-64 for
the other healthy columns' cells), once far enough to be named.
"""
import re
import shutil
import tempfile
from pathlib import Path

from conftest import binary, gpcnet, load, make_testbed

HOSTS = 6
testbed = make_testbed("--hosts", str(HOSTS))
RANK0_HOST = "node01"
SLOW = "node03"  # not rank 0's host


def test_degraded_link_is_named_by_the_matrix(testbed):
    out = tempfile.mkdtemp(prefix="gpcnet-allpairs-", dir="/var/tmp")  # seen by every host
    try:
        gpcnet("testbed", "fault", "degrade", "--percent", "0.25", f"d{int(SLOW[4:])}")
        try:
            # 64 KiB messages (with 16 KiB ones, which sit in socket
            # buffers, some cells read over 1 GiB/s): a shift through the
            # degraded link takes about 3 s at 0.25 % of the rate, the
            # matrix about 15 s.
            gpcnet("testbed", "run", "--timeout", "120", "--", binary("network_test"),
                   "--tests", "rr_two_sided_lat", "--time-limit", "0.5", "--all-pairs",
                   "--all-pairs-bytes", "65536", "--quiet", "--output-dir", out, timeout=180)
        finally:
            gpcnet("testbed", "fault", "clear", check=False)
        doc = load(f"{out}/network_test.json")
        ap = doc["all_pairs"]
        assert ap["nodes"] == [f"node{i:02d}" for i in range(1, HOSTS + 1)]
        slow = ap["nodes"].index(SLOW)
        cells = ap["bandwidth_mib_s"]
        print("MEASURED all-pairs MiB/s:", [[v and round(v) for v in row] for row in cells],
              f"{ap['wall_s']:.2f} s")
        # Every pair through the degraded link is slower than every other.
        pairs = [(i, j) for i in range(HOSTS) for j in range(HOSTS) if i != j]
        through = [cells[i][j] for i, j in pairs if slow in (i, j)]
        others = [cells[i][j] for i, j in pairs if slow not in (i, j)]
        print(f"MEASURED through {SLOW}: {min(through):.2f}-{max(through):.2f} MiB/s,"
              f" others {min(others):.1f}-{max(others):.1f} MiB/s")
        assert max(through) < min(others), (through, others)
        report = Path(out) / "report.html"
        gpcnet("report", f"{out}/network_test.json", "-o", str(report))
        html = report.read_text()
        assert f"node {SLOW}: sends and receives slowly" in html
        named = re.search(r"Hosts behind slow links: (.*?)\.</p>", html).group(1)
        assert named in (f'<strong class="slow">{SLOW}</strong>',
                         f'<strong class="slow">{RANK0_HOST}</strong>, <strong class="slow">{SLOW}</strong>'), named
        if RANK0_HOST in named:
            assert f"node {RANK0_HOST}: receives slowly" in html, html[-3000:]
    finally:
        shutil.rmtree(out, ignore_errors=True)
