# A command run beside the caller's own work (a "lane"), for
# scripts/test.sh: in a process group of its own (so the whole of it can be
# stopped, and a Ctrl-C meant for the caller's foreground stage does not
# reach it), its output in a file, and stopped when the caller ends or is
# stopped. Source it, then:
#
#   lane_traps                  stop the lane on exit, INT, TERM and HUP
#   lane_start LOG COMMAND...   start COMMAND, its output to LOG
#   lane_wait                   wait for it; its exit status in $lane_rc
#
# Stopping sends SIGTERM to the lane's process group (pytest unwinds its
# fixtures and reaps the jobs it started, in their own sessions), waits
# for the group to be gone, at most LANE_GRACE seconds (default 60), then
# sends SIGKILL.
lane_pid=""
lane_rc=0

lane_start() { # log, command...
    local log="$1"; shift
    # Not a process group leader (a child of this shell), setsid makes the
    # command one without forking: $! is the group's id.
    setsid "$@" </dev/null >"$log" 2>&1 &
    lane_pid=$!
}

lane_gone_within() { # group, seconds: true once no process of the group is left
    local i
    for ((i = 0; i < 2 * $2; i++)); do
        kill -0 -- "-$1" 2>/dev/null || return 0
        sleep 0.5
    done
    return 1
}

lane_stop() {
    [ -n "$lane_pid" ] || return 0
    local group="$lane_pid"
    lane_pid=""
    kill -TERM -- "-$group" 2>/dev/null || return 0
    lane_gone_within "$group" "${LANE_GRACE:-60}" && return 0
    kill -KILL -- "-$group" 2>/dev/null
    # SIGKILL is delivered on the way: return when it has been.
    lane_gone_within "$group" 10
    return 0
}

lane_wait() {
    local pid="$lane_pid"
    lane_rc=0
    [ -n "$pid" ] || return 0
    wait "$pid"
    lane_rc=$?
    lane_pid=""
}

lane_traps() {
    trap 'lane_stop' EXIT
    trap 'lane_stop; exit 130' INT
    trap 'lane_stop; exit 143' TERM
    trap 'lane_stop; exit 129' HUP
}
