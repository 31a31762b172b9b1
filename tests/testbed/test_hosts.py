"""Hosts that are hosts: every testbed host (and the head node) has its own
/tmp, /dev/shm and /run, as a cluster's nodes have, and `down` leaves
nothing mounted, also after a crash midway through `up`
(docs/testbed.md, docs/reliability.md T18, T19)."""
import os
import signal
import subprocess
import sys

from conftest import REPO, STATE_DIR, gpcnet, make_testbed, our_mounts, our_namespaces

star3 = make_testbed("--topology", "star", "--hosts", "3")
PRIVATE = ("/tmp", "/dev/shm", "/run")


def test_each_host_has_its_own_tmp_shm_and_run(star3):
    probe = f"gtb-probe-{os.getpid()}"
    # First every host writes its name into the same file names, then every
    # host reads them back: on shared directories all would read one name.
    write = " ; ".join(f"hostname > {d}/{probe}" for d in PRIVATE)
    gpcnet("testbed", "run", "--timeout", 60, "--", "sh", "-c", write)
    read = " ; ".join(f'echo "$(hostname) {d} $(cat {d}/{probe}) $(findmnt -n -o SOURCE {d} | tail -n 1)"'
                      for d in PRIVATE)
    out = gpcnet("testbed", "run", "--timeout", 60, "--", "sh", "-c", read).stdout.split("\n")
    seen = sorted(line.split() for line in out if line.strip())
    want = sorted([h, d, h, f"gtb-{d.split('/')[-1]}"] for h in ("node01", "node02", "node03")
                  for d in PRIVATE)
    assert seen == want
    # Neither the head node nor this machine saw the files.
    head = gpcnet("testbed", "run", "--no-mpi", "--", "sh", "-c",
                  f"ls {' '.join(f'{d}/{probe}' for d in PRIVATE)} 2>&1; hostname").stdout
    assert head.count("No such file") == 3 and head.split()[-1] == "tbhead", head
    assert not any(os.path.exists(f"{d}/{probe}") for d in PRIVATE)
    # The shared state (agent, hostfiles) stays visible in the private /run.
    out = gpcnet("testbed", "run", "--no-mpi", "--", "ls", STATE_DIR / "rsh-agent").stdout
    assert out.strip() == str(STATE_DIR / "rsh-agent")


def test_a_host_whose_holder_died_is_down(star3):
    """Runs last on star3 (the crash test below takes it down). A host whose holder is gone (killed) is refused
    by the agent with one line; the job does not hang; `down` cleans up."""
    pid = int((STATE_DIR / "hosts" / "node02").read_text().split()[0])
    os.kill(pid, signal.SIGKILL)
    p = gpcnet("testbed", "run", "--timeout", 60, "--", "true", check=False, timeout=120)
    assert p.returncode != 0
    assert "testbed agent: host 'node02' is down" in p.stdout + p.stderr, p.stdout + p.stderr


CRASH = """
import os, signal, sys
sys.path.insert(0, sys.argv[1])
from gpcnet.testbed import netns, topology
real = netns._private_mounts
def mounts_then_crash(topo):
    real(topo)
    os.kill(os.getpid(), signal.SIGKILL)   # no clean-up of any kind runs
netns._private_mounts = mounts_then_crash
netns.create(topology.build("star", 3))
"""


def test_crash_after_the_mounts_leaves_nothing_after_down(clean):
    p = subprocess.run([sys.executable, "-c", CRASH, str(REPO / "python")], timeout=120,
                       capture_output=True, text=True)
    assert p.returncode == -signal.SIGKILL, p.stderr
    # What the crash left: the namespaces, the bind mounts keeping the host
    # names and the processes holding the private /tmp, /dev/shm and /run
    # (3 hosts + head, each).
    assert len(our_mounts()) == 4, our_mounts()
    assert len(our_namespaces()) == 5
    assert len(in_private_mounts()) == 4
    out = gpcnet("testbed", "down").stdout
    assert "removed 5 namespaces" in out
    assert our_mounts() == [] and our_namespaces() == [] and in_private_mounts() == []
    assert not STATE_DIR.exists()


def in_private_mounts() -> list:
    """Processes that see a testbed host's private /tmp."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if " - tmpfs gtb-tmp " in open(f"/proc/{pid}/mountinfo").read():
                found.append(pid)
        except OSError:
            pass
    return found
