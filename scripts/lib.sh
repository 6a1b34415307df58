# Shared helpers for crubatch's scripts. Source it; it defines functions only.

CRUBATCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Runs a command as root: directly when we are root, else through sudo.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Where the package installs' full output goes: one line on the terminal names what is installed.
CRUBATCH_INSTALL_LOG=${CRUBATCH_INSTALL_LOG:-${TMPDIR:-/tmp}/crubatch-install.log}

# Installs the Debian packages given that are not installed yet (apt-get update once), saying so in one
# line; apt's own output goes to $CRUBATCH_INSTALL_LOG, and is shown whole only when it fails.
ensure_packages() {
    local missing=()
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "installing ${missing[*]} (log: $CRUBATCH_INSTALL_LOG)" >&2
    # Debian starts a package's service on install (postgresql's main cluster, nginx on port 80) unless
    # /usr/sbin/policy-rc.d says no: while installing, it does, so nothing is left running we did not ask
    # for. A subshell whose exit (interrupted too) removes the file it made.
    if ! (
        policy=/usr/sbin/policy-rc.d
        if [ ! -e "$policy" ]; then
            trap 'as_root rm -f "$policy"' EXIT
            trap 'exit 130' INT TERM
            printf '#!/bin/sh\nexit 101\n' | as_root tee "$policy" >/dev/null && as_root chmod 755 "$policy"
        fi
        as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq \
            && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
    ) >>"$CRUBATCH_INSTALL_LOG" 2>&1; then
        cat "$CRUBATCH_INSTALL_LOG" >&2
        echo "installing ${missing[*]} failed (log: $CRUBATCH_INSTALL_LOG)" >&2
        return 1
    fi
}

# What building crubatch needs from Debian.
CRUBATCH_BUILD_PACKAGES=(libpq-dev libcsv-dev libcurl4-openssl-dev libssl-dev libxlsxwriter-dev libbson-dev zlib1g-dev)
# Everything the build, the tests and the demo need from Debian (man-db: the install test reads the pages;
# python3-openpyxl: the tests write and read .xlsx workbooks with it, an Excel reader independent of ours;
# python3-networkx: its min-cost flow is the oracle the ride pairing is checked against;
# chromium: the HTML report is checked in a real browser, headless; openssl: the HTTPS test server's
# certificate is made at test time; python3-bson: the tests write an old Keystone app's dump as mongodump does;
# curl: the staff console's tests and the demo speak HTTP to it as a browser does; chromium-driver and
# python3-selenium: a real browser walks through the console; nginx-light: the console's nginx example is
# tested in front of it).
CRUBATCH_PACKAGES=("${CRUBATCH_BUILD_PACKAGES[@]}" postgresql python3-aiosmtpd python3-openpyxl python3-networkx python3-bson
                   time man-db chromium chromium-driver python3-selenium openssl curl nginx-light)

# Makes sure the Swift toolchain is on PATH.
ensure_swift() {
    if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
        export PATH=/opt/swift/usr/bin:$PATH
    fi
    command -v swift >/dev/null 2>&1 || { echo "swift is not installed (expected on PATH or in /opt/swift)" >&2; exit 69; }
}

# The folder of PostgreSQL 15's programs (pg_ctl, pg_dump, psql ...), installing the server when missing.
postgres_bin() {
    local dir=/usr/lib/postgresql/15/bin
    [ -x "$dir/pg_ctl" ] || ensure_packages postgresql >/dev/null
    [ -x "$dir/pg_ctl" ] || { echo "PostgreSQL 15 server binaries not found in $dir" >&2; exit 69; }
    echo "$dir"
}

# The servers a script started (pg, smtp, ha), newest last: it stops those and only those.
CRUBATCH_STARTED=()

# Starts scripts/pg's PostgreSQL cluster unless it runs already (then it is left running at the end).
start_postgres() {
    scripts/pg status >/dev/null 2>&1 || CRUBATCH_STARTED+=(pg)
    scripts/pg start
}

# Starts scripts/smtp-sink's sink unless it runs already.
start_smtp_sink() {
    [ -f .smtp/pid ] && kill -0 "$(cat .smtp/pid)" 2>/dev/null || CRUBATCH_STARTED+=(smtp)
    scripts/smtp-sink start
}

# Stops what this script started, newest first; for a script's EXIT trap.
stop_started_services() {
    local index
    for (( index = ${#CRUBATCH_STARTED[@]} - 1; index >= 0; index-- )); do
        case ${CRUBATCH_STARTED[index]} in
            pg) scripts/pg stop || true ;;
            smtp) scripts/smtp-sink stop || true ;;
            ha) scripts/pg-ha stop || true ;;
        esac
    done
}
