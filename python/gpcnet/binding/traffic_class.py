"""Joining a traffic class of the testbed (`gpcnet-bind --traffic-class K`,
or GPCNET_TRAFFIC_CLASS=K in the rank's environment): the rank moves
itself into class K's cgroup, whose program marks every TCP connection it
makes with the class (gpcnet.testbed.class_marking), then starts the
benchmark, which inherits the cgroup. The MPI takes no part: the same for
Open MPI, MPICH or a plain program.

Only the standard library: this runs in every rank at start-up. The
testbed's state file (the state directory is on every host's /run) says
how many classes there are and where their cgroups are.
"""

from __future__ import annotations

import json
import os
import re

from gpcnet.binding.nic_bind import BindError

ENV = "GPCNET_TRAFFIC_CLASS"


def state_dir() -> str:
    # As gpcnet.testbed.netns.STATE_DIR (not imported: it loads the testbed's modules).
    return os.environ.get("GPCNET_TESTBED_DIR", "/run/gpcnet-testbed")


def testbed_classes() -> dict:
    """The running testbed's classes ({"count", "scheduler", "weights",
    "cgroup"}, and "hosts": its host names); BindError when no testbed
    with classes is up."""
    path = os.path.join(state_dir(), "state.json")
    try:
        with open(path, encoding="utf-8") as f:
            state = json.load(f)
    except FileNotFoundError:
        raise BindError(f"--traffic-class: no testbed is up ({path} does not exist); "
                        "traffic classes are the testbed's: gpcnet testbed up --traffic-classes N") from None
    except (OSError, ValueError) as e:
        raise BindError(f"--traffic-class: {path}: unreadable testbed state ({e})") from None
    classes = (state.get("topology") or {}).get("classes") or {} if isinstance(state, dict) else {}
    if not classes.get("count") or not classes.get("cgroup"):
        raise BindError("--traffic-class: the testbed that is up has no traffic classes "
                        "(gpcnet testbed up --traffic-classes N)")
    hosts = [h.get("name") for h in state["topology"].get("hosts") or [] if isinstance(h, dict)]
    return {**classes, "hosts": hosts}


def check_hosts(text: str, classes: dict) -> list:
    """--class-hosts: host names of the testbed, comma-separated (a typo
    would silently leave every rank in class 0)."""
    names = [n.strip() for n in text.split(",")]
    unknown = [n for n in names if n not in classes["hosts"]]
    if not all(names) or unknown:
        known = classes["hosts"]
        raise BindError(f"--class-hosts {text!r}: " + (f"{unknown[0]!r} is not" if unknown and unknown[0]
                        else "empty names are not") + f" a host of the testbed ({known[0]} to {known[-1]})")
    return names


def parse(text: str, source: str) -> int:
    t = str(text).strip()
    if not re.fullmatch(r"[0-9]{1,2}", t):
        raise BindError(f"{source} {text!r}: unknown class; expected a class number, 0 to 7")
    return int(t)


def join_check(k: int, source: str) -> dict:
    """The testbed's classes, when class k is one of them; else BindError."""
    classes = testbed_classes()
    if k >= classes["count"]:
        raise BindError(f"{source} {k}: the testbed has {classes['count']} traffic classes, "
                        f"0 to {classes['count'] - 1} (gpcnet testbed up --traffic-classes N)")
    return classes


def join(k: int, source: str) -> str:
    """Move this process into class k's cgroup; returns the cgroup's path."""
    classes = join_check(k, source)
    target = os.path.join(classes["cgroup"], f"class-{k}", "cgroup.procs")
    try:
        # Opened without following a link: we run as root, the path is the state file's.
        fd = os.open(target, os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            os.write(fd, b"0")        # "0": the writing process itself
        finally:
            os.close(fd)
    except OSError as e:
        raise BindError(f"{source} {k}: cannot join the class ({target}: {e.strerror}); "
                        "is the testbed up, and are we root?") from None
    return os.path.dirname(target)
