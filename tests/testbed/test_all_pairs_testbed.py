"""A degraded link named by the all-pairs matrix (network_test --all-pairs,
docs/method.md#all-pairs): one host's data link cut to 0.25 % of its rate
(`gpcnet testbed fault degrade --percent 0.25`), the matrix measured across
the 4 hosts, and the report names that host and no other, sending and
receiving. The host is the one the fault was set on; no threshold on the
values beyond the outlier rule.

Why 0.25 %: the degraded pairs run at the link's cut rate whatever the
load, the healthy ones as fast as the 2 CPUs move them. Under the load of
CI's other lane the healthy cells fell to 16-62 MiB/s and, at 1 %, the
degraded ones (1-2 MiB/s) were about 20 times slower: at 4 nodes the rule
then missed node03's row or its column in 3 runs of 3 (z -3.25 to -3.49
against the cut-off's -3.5). At 0.25 % they were 36 or more times slower
in 3 runs of 3 under the same load (reliability.md Q10)."""
import re
import shutil
import tempfile
from pathlib import Path

from conftest import binary, gpcnet, load, make_testbed

testbed = make_testbed("--hosts", "4")
SLOW = "node03"  # not rank 0's host (node01)


def test_degraded_link_is_named_by_the_matrix(testbed):
    out = tempfile.mkdtemp(prefix="gpcnet-allpairs-", dir="/var/tmp")  # seen by every host
    try:
        gpcnet("testbed", "fault", "degrade", "--percent", "0.25", f"d{int(SLOW[4:])}")
        try:
            # 64 KiB messages, large enough not to sit in socket buffers:
            # 13 of them, a shift through the degraded link, take about
            # 3 s at 0.25 % of the rate (about 10 s for the matrix).
            gpcnet("testbed", "run", "--timeout", "120", "--", binary("network_test"),
                   "--tests", "rr_two_sided_lat", "--time-limit", "0.5", "--all-pairs",
                   "--all-pairs-bytes", "65536", "--quiet", "--output-dir", out, timeout=180)
        finally:
            gpcnet("testbed", "fault", "clear", check=False)
        doc = load(f"{out}/network_test.json")
        ap = doc["all_pairs"]
        assert ap["nodes"] == ["node01", "node02", "node03", "node04"]
        slow = ap["nodes"].index(SLOW)
        print("MEASURED all-pairs MiB/s:", [[v and round(v) for v in row] for row in ap["bandwidth_mib_s"]],
              f"{ap['wall_s']:.2f} s")
        # Every pair through the degraded link is slower than every other.
        through = [ap["bandwidth_mib_s"][i][j] for i in range(4) for j in range(4)
                   if i != j and slow in (i, j)]
        others = [ap["bandwidth_mib_s"][i][j] for i in range(4) for j in range(4)
                  if i != j and slow not in (i, j)]
        assert max(through) < min(others), (through, others)
        print(f"MEASURED through {SLOW}: {min(through):.2f}-{max(through):.2f} MiB/s,"
              f" others {min(others):.1f}-{max(others):.1f} MiB/s")
        report = Path(out) / "report.html"
        gpcnet("report", f"{out}/network_test.json", "-o", str(report))
        html = report.read_text()
        named = re.search(r"Hosts behind slow links: (.*?)\.</p>", html).group(1)
        assert named == f'<strong class="slow">{SLOW}</strong>', named
        assert f"node {SLOW}: sends and receives slowly" in html
    finally:
        shutil.rmtree(out, ignore_errors=True)
