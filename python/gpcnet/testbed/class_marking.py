"""Marking a rank's packets with its traffic class, without its MPI's
cooperation: one cgroup (v2) per class, and in each a small BPF program
of the kernel's sock_ops kind that gives every TCP connection of the
cgroup's processes the class's TOS byte (setsockopt IP_TOS, from inside
the kernel). `gpcnet-bind --traffic-class K` moves the rank into class
K's cgroup before it starts the benchmark (gpcnet.binding.traffic_class);
the rank's children and threads inherit it.

Why this mechanism: it is per process (so canaries and congestors on one
host can differ), works for any program that talks TCP (Open MPI's tcp
BTL, MPICH's ch4:ofi over the tcp provider, a plain socket), needs no
library preloaded and no rule in any network namespace, and needs only
the kernel (cgroup v2 and BPF: no nft or iptables program, which this
project's machines do not have). The TOS is set when a connection is
made (the connect, and both ends' establishment), so the SYN and every
data packet carry it.

The program, as it is loaded (eBPF, 16 instructions):

    r6 = r1                      the sock_ops context
    r2 = ctx->op
    if r2 in (TCP_CONNECT, ACTIVE_ESTABLISHED, PASSIVE_ESTABLISHED):
        *(u32 *)(fp - 4) = TOS
        bpf_setsockopt(ctx, SOL_IP, IP_TOS, fp - 4, 4)
    return 1

`down` (teardown.destroy) ends any process still in a class cgroup and
removes the cgroups; the programs go with them.
"""

from __future__ import annotations

import ctypes
import os
import signal
import struct
import time
from pathlib import Path

from gpcnet.infra.errors import GpcnetError
from gpcnet.testbed import classes as traffic_classes

GROUP = "gpcnet-testbed"    # under the cgroup v2 root; ours by name
SYS_BPF = {"x86_64": 321, "aarch64": 280}
BPF_PROG_LOAD, BPF_PROG_ATTACH = 5, 8
BPF_PROG_TYPE_SOCK_OPS, BPF_CGROUP_SOCK_OPS = 13, 3
OPS_TCP_CONNECT, OPS_ACTIVE_ESTABLISHED, OPS_PASSIVE_ESTABLISHED = 3, 4, 5
BPF_FUNC_SETSOCKOPT, SOL_IP, IP_TOS = 49, 0, 1


def cgroup2_root() -> Path | None:
    """Where cgroup v2 is mounted (/sys/fs/cgroup, or /sys/fs/cgroup/unified
    on a hybrid system), or None."""
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                left, _, right = line.partition(" - ")
                if right.split()[:1] == ["cgroup2"]:
                    return Path(left.split()[4].replace("\\040", " "))
    except OSError:
        pass
    return None


def group_dir() -> Path | None:
    root = cgroup2_root()
    return root / GROUP if root else None


def class_dir(base: Path, k: int) -> Path:
    return base / f"class-{k}"


def _insn(code: int, dst: int = 0, src: int = 0, off: int = 0, imm: int = 0) -> bytes:
    return struct.pack("<BBhi", code, dst | (src << 4), off, imm)


def program(tos: int) -> bytes:
    """The sock_ops program that sets IP_TOS = tos (module docstring)."""
    return b"".join([
        _insn(0xbf, 6, 1),                                  # r6 = r1
        _insn(0x61, 2, 6, 0),                               # r2 = *(u32 *)(r6 + 0): op
        _insn(0x15, 2, 0, 3, OPS_TCP_CONNECT),              # if r2 == imm goto set
        _insn(0x15, 2, 0, 2, OPS_ACTIVE_ESTABLISHED),
        _insn(0x15, 2, 0, 1, OPS_PASSIVE_ESTABLISHED),
        _insn(0x05, 0, 0, 8),                               # goto out
        _insn(0x62, 10, 0, -4, tos),                        # set: *(u32 *)(fp - 4) = tos
        _insn(0xbf, 1, 6),                                  # r1 = ctx
        _insn(0xb7, 2, 0, 0, SOL_IP),
        _insn(0xb7, 3, 0, 0, IP_TOS),
        _insn(0xbf, 4, 10),                                 # r4 = fp
        _insn(0x07, 4, 0, 0, -4),                           # r4 -= 4
        _insn(0xb7, 5, 0, 0, 4),                            # r5 = sizeof(int)
        _insn(0x85, 0, 0, 0, BPF_FUNC_SETSOCKOPT),
        _insn(0xb7, 0, 0, 0, 1),                            # out: r0 = 1
        _insn(0x95)])                                       # exit


def _bpf(cmd: int, attr: bytes) -> int:
    nr = SYS_BPF.get(os.uname().machine)
    if nr is None:
        raise GpcnetError(f"--traffic-classes: not supported on {os.uname().machine} (x86_64, aarch64)")
    libc = ctypes.CDLL(None, use_errno=True)
    buf = ctypes.create_string_buffer(attr, 128)
    r = libc.syscall(nr, cmd, buf, 128)
    if r < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return r


def _attach(cgroup: Path, tos: int) -> None:
    code = program(tos)
    insns = ctypes.create_string_buffer(code, len(code))
    lic = ctypes.create_string_buffer(b"GPL")
    log = ctypes.create_string_buffer(4096)
    attr = struct.pack("<IIQQIIQ", BPF_PROG_TYPE_SOCK_OPS, len(code) // 8, ctypes.addressof(insns),
                       ctypes.addressof(lic), 1, len(log), ctypes.addressof(log))
    try:
        prog = _bpf(BPF_PROG_LOAD, attr)
    except OSError as e:
        why = log.value.decode(errors="replace").strip().splitlines()[-1:] or [e.strerror]
        raise GpcnetError(f"--traffic-classes: the kernel refused the marking program ({why[0]}); "
                          "it needs CONFIG_CGROUP_BPF") from None
    try:
        fd = os.open(cgroup, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            _bpf(BPF_PROG_ATTACH, struct.pack("<IIII", fd, prog, BPF_CGROUP_SOCK_OPS, 0))
        finally:
            os.close(fd)
    except OSError as e:
        raise GpcnetError(f"{cgroup}: cannot attach the marking program: {e.strerror}") from None
    finally:
        os.close(prog)   # the cgroup keeps the program


def create(classes: dict) -> str:
    """Make the class cgroups with their programs; returns the group's path
    (recorded in the state, for gpcnet-bind and down)."""
    base = group_dir()
    if base is None:
        raise GpcnetError("--traffic-classes needs cgroup v2 mounted (a cgroup2 file system, e.g. on "
                          "/sys/fs/cgroup): none is")
    remove(str(base))   # a crashed testbed's, if any: up has already removed the rest of it
    try:
        base.mkdir(mode=0o755)
        for k in range(classes["count"]):
            class_dir(base, k).mkdir(mode=0o755)
    except OSError as e:
        raise GpcnetError(f"{base}: cannot make the traffic-class cgroups: {e.strerror}") from None
    for k in range(classes["count"]):
        _attach(class_dir(base, k), traffic_classes.tos(k))
    return str(base)


def remove(path: str | None = None) -> list:
    """End every process in the class cgroups and remove them (a whole,
    half-made or crashed testbed's alike); returns the PIDs ended."""
    base = Path(path) if path else group_dir()
    if base is None or not base.is_dir():
        return []
    subs = [d for d in base.iterdir() if d.is_dir() and not d.is_symlink() and d.name.startswith("class-")]
    ended = []
    for sig in (signal.SIGTERM, signal.SIGKILL):
        pids = [int(p) for d in subs for p in _read(d / "cgroup.procs").split()]
        for pid in pids:
            try:
                os.kill(pid, sig)
                ended.append(pid)
            except ProcessLookupError:
                pass
        end = time.monotonic() + 5
        while pids and time.monotonic() < end and any(_read(d / "cgroup.procs").strip() for d in subs):
            time.sleep(0.1)
    for d in subs + [base]:
        try:
            d.rmdir()
        except OSError:
            pass
    return sorted(set(ended))


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""
