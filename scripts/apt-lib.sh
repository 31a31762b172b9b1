# Sourced by the setup scripts: install Debian packages non-interactively,
# as root or through sudo, running `apt-get update` once per script.
# APT_WHO names the script in the progress line.
export DEBIAN_FRONTEND=noninteractive
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
apt_updated=0
apt_install() {
    if [ "$apt_updated" -eq 0 ]; then
        as_root apt-get update -q </dev/null >/dev/null
        apt_updated=1
    fi
    echo "${APT_WHO:-setup}: installing $*"
    as_root apt-get install -y -q --no-install-recommends "$@" </dev/null >/dev/null
}
