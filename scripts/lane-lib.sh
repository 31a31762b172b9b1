# A command run beside the caller's own work (a "lane"), for
# scripts/test.sh: in a process group of its own (so the whole of it can be
# stopped, and a Ctrl-C meant for the caller's foreground stage does not
# reach it), where it can be in a cpu cgroup of its own, its output in a
# file, and stopped when the caller ends or is stopped. Source it, then:
#
#   lane_traps                  stop the lane on exit, INT, TERM and HUP
#   lane_start LOG COMMAND...   start COMMAND, its output to LOG; $lane_cpu
#                               says whether it got a cgroup
#   lane_wait                   wait for it; its exit status in $lane_rc
#
# Stopping sends SIGTERM to the lane's process group (pytest unwinds its
# fixtures and reaps the jobs it started, in their own sessions), waits
# for the group to be gone, at most LANE_GRACE seconds (default 60), then
# sends SIGKILL. With a cgroup, what is still in it then (a job in a
# session of its own) is stopped the same way, and the cgroup removed.
#
# Why a cgroup: Linux's scheduler weighs each session as one (autogroup),
# and MPICH's launcher starts every rank in a session of its own, so each
# polling rank of the lane weighed as much as the whole suite beside it
# (the Python tool's tests took 246 s beside MPICH's reliability tests,
# 50 s alone). In a cpu cgroup the lane weighs as one session, however
# many its processes (93 s). Where no cgroup can be made (no cgroup v1
# cpu controller, no cgroup v2 cpu controller handed to our children, not
# root) the lane runs as before.
lane_pid=""
lane_rc=0
lane_cgroup=""
lane_cpu=""

lane_cgroup_forget_stale() { # parent: remove empty lane cgroups of suites that are gone (killed)
    local d
    for d in "$1"/gpcnet-lane.*; do
        [ -d "$d" ] && ! kill -0 "${d##*.}" 2>/dev/null &&
            [ -z "$(cat "$d/cgroup.procs" 2>/dev/null)" ] && rmdir "$d" 2>/dev/null
    done
    return 0
}

lane_cgroup_make() { # sets lane_cgroup and lane_cpu
    local rel root dir
    # cgroup v1: a child of our cgroup in the cpu controller's hierarchy.
    rel=$(awk -F: '$2 ~ /(^|,)cpu(,|$)/ {print $3; exit}' /proc/self/cgroup 2>/dev/null)
    if [ -n "$rel" ]; then
        for root in /sys/fs/cgroup/cpu /sys/fs/cgroup/cpu,cpuacct; do
            [ -f "$root${rel%/}/cpu.shares" ] || continue
            lane_cgroup_forget_stale "$root${rel%/}"
            dir="$root${rel%/}/gpcnet-lane.$$"
            # 1024: the weight of one session of nice 0.
            if mkdir "$dir" 2>/dev/null && echo 1024 >"$dir/cpu.shares" 2>/dev/null; then
                lane_cgroup="$dir" lane_cpu="cpu cgroup $dir"
                return 0
            fi
            rmdir "$dir" 2>/dev/null
        done
    fi
    # cgroup v2: only where our cgroup already hands the cpu controller to
    # its children (enabling it would change the machine's settings).
    rel=$(awk -F: '$1 == "0" {print $3; exit}' /proc/self/cgroup 2>/dev/null)
    dir="/sys/fs/cgroup${rel%/}"
    if [ -n "$rel" ] && grep -qw cpu "$dir/cgroup.subtree_control" 2>/dev/null; then
        if mkdir "$dir/gpcnet-lane.$$" 2>/dev/null && echo 100 >"$dir/gpcnet-lane.$$/cpu.weight" 2>/dev/null; then
            lane_cgroup="$dir/gpcnet-lane.$$" lane_cpu="cpu cgroup $dir/gpcnet-lane.$$"
            return 0
        fi
        rmdir "$dir/gpcnet-lane.$$" 2>/dev/null
    fi
    lane_cpu="no cpu cgroup (none could be made here): its processes share the CPU as they are"
    return 1
}

lane_start() { # log, command...
    local log="$1"; shift
    lane_cgroup_make
    # Not a process group leader (a child of this shell), setsid makes the
    # command one without forking: $! is the group's id. The shell joins
    # the cgroup before it execs the command, so every process of the lane
    # starts in it.
    if [ -n "$lane_cgroup" ]; then
        setsid bash -c 'echo $$ >"$1/cgroup.procs" || echo "lane: could not join $1" >&2
                        shift; exec "$@"' lane "$lane_cgroup" "$@" </dev/null >"$log" 2>&1 &
    else
        setsid "$@" </dev/null >"$log" 2>&1 &
    fi
    lane_pid=$!
}

lane_until() { # seconds, command...: true once the command is, polled every 0.5 s
    local i n="$1"; shift
    for ((i = 0; i < 2 * n; i++)); do
        "$@" && return 0
        sleep 0.5
    done
    return 1
}
lane_group_gone() { ! kill -0 -- "-$1" 2>/dev/null; }
lane_cgroup_empty() { [ -z "$(cat "$lane_cgroup/cgroup.procs" 2>/dev/null)" ]; }

lane_cgroup_end() { # stop what is left in the lane's cgroup, then remove it
    [ -n "$lane_cgroup" ] || return 0
    local left i
    left=$(cat "$lane_cgroup/cgroup.procs" 2>/dev/null)
    if [ -n "$left" ]; then
        echo "lane: $(wc -w <<<"$left") processes left in $lane_cgroup: stopped" >&2
        # shellcheck disable=SC2086 # one pid per word
        kill -TERM $left 2>/dev/null
        if ! lane_until "${LANE_GRACE:-60}" lane_cgroup_empty; then
            # shellcheck disable=SC2086
            kill -KILL $(cat "$lane_cgroup/cgroup.procs" 2>/dev/null) 2>/dev/null
            lane_until 10 lane_cgroup_empty
        fi
    fi
    # A process that has just exited may hold the cgroup a moment longer.
    for ((i = 0; i < 20; i++)); do
        rmdir "$lane_cgroup" 2>/dev/null && break
        sleep 0.5
    done
    lane_cgroup=""
}

lane_stop() {
    [ -n "$lane_pid" ] || { lane_cgroup_end; return 0; }
    local group="$lane_pid"
    lane_pid=""
    if kill -TERM -- "-$group" 2>/dev/null && ! lane_until "${LANE_GRACE:-60}" lane_group_gone "$group"; then
        kill -KILL -- "-$group" 2>/dev/null
        # SIGKILL is delivered on the way: return when it has been.
        lane_until 10 lane_group_gone "$group"
    fi
    lane_cgroup_end
    return 0
}

lane_wait() {
    local pid="$lane_pid"
    lane_rc=0
    [ -n "$pid" ] || return 0
    wait "$pid"
    lane_rc=$?
    lane_pid=""
    lane_cgroup_end
}

lane_traps() {
    trap 'lane_stop' EXIT
    trap 'lane_stop; exit 130' INT
    trap 'lane_stop; exit 143' TERM
    trap 'lane_stop; exit 129' HUP
}
