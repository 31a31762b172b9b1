# Sourced by scripts that take numbers from the environment: a value is
# checked to be a plain whole number in range BEFORE any shell arithmetic
# sees it (bash evaluates `$((x))` recursively, so NODES='a[$(cmd)]' would
# run cmd). A bad value ends the script with one line and exit 2.
#
#   env_int NAME VALUE MIN MAX       one number
#   env_ints NAME "VALUES" MIN MAX   a space-separated list of them
env_int() {
    local name="$1" value="$2" lo="$3" hi="$4"
    if ! [[ "$value" =~ ^[0-9]{1,9}$ ]] || (( 10#$value < lo || 10#$value > hi )); then
        printf '%s: %s=%q: expected a whole number from %s to %s\n' \
            "$(basename "$0")" "$name" "$value" "$lo" "$hi" >&2
        exit 2
    fi
}
env_ints() {
    local name="$1" v
    [ -n "${2// /}" ] || { printf '%s: %s is empty\n' "$(basename "$0")" "$name" >&2; exit 2; }
    for v in $2; do env_int "$name" "$v" "$3" "$4"; done
}
