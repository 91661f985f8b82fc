#!/usr/bin/env bash
# Check (and where possible install) the system programs minikafka's lessons
# and tests use, and record what was found for the test run.
#
# Usage: scripts/ensure_system_deps.sh [dot] [java] [chromium]
#        (no arguments = all three)
#
#   dot       Graphviz's layout program, used by the lesson diagrams
#             (Debian package graphviz)
#   java      a Java runtime >= 17, needed by PySpark 4
#             (Debian package openjdk-17-jre-headless)
#   chromium  the browser that drives the JupyterLab end-to-end test
#             (Debian package chromium)
#
# When something is missing and this user may run apt-get (root, or sudo
# without a password), the missing packages are installed; "apt-get update"
# runs only in that case.  Otherwise (or if apt-get fails) exactly one line
# says what to install, and the script still succeeds: the tests needing the
# missing program are skipped with a reason (see conftest.py).  Nothing is
# printed when everything is present.
#
# The result goes to .make-stamps/system-deps.env as shell assignments, one
# per checked program, holding its path or nothing if it is missing:
#   MINIKAFKA_DOT=/usr/bin/dot
#   MINIKAFKA_JAVA=/usr/bin/java
#   MINIKAFKA_CHROMIUM=''
# `make test` exports these to pytest.  MINIKAFKA_CHROMIUM may also be set
# beforehand to use a Chromium installed somewhere else.
#
# Set MINIKAFKA_NO_SYSTEM_INSTALL=1 to never run apt-get.  MINIKAFKA_STAMP_DIR
# moves the status file and the apt log elsewhere (used by the tests).
# Written for bash 3.2 too (no associative arrays), so macOS can run it.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
status_dir=${MINIKAFKA_STAMP_DIR:-$root/.make-stamps}
status_file=$status_dir/system-deps.env
apt_log=$status_dir/apt.log

debian_package() {
    case $1 in
        dot) echo graphviz ;;
        java) echo openjdk-17-jre-headless ;;
        chromium) echo chromium ;;
        *) return 1 ;;
    esac
}

describe() {
    case $1 in
        dot) echo "Graphviz (dot)" ;;
        java) echo "Java >= 17 (java)" ;;
        chromium) echo "Chromium (chromium)" ;;
    esac
}

# Print, for each named program, its package (or description), joined by $1.
join_each() {
    local separator=$1 kind=$2 out="" tool; shift 2
    for tool in "$@"; do out+="${out:+$separator}$("$kind" "$tool")"; done
    echo "$out"
}

find_dot() { command -v dot || true; }

find_java() {
    # Spark prefers $JAVA_HOME/bin/java over the one on PATH; check the same one.
    local java version major
    if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then
        java=$JAVA_HOME/bin/java
    else
        java=$(command -v java || true)
    fi
    [[ -n "$java" ]] || return 0
    # "java -version" prints e.g. openjdk version "17.0.15" (or "1.8.0_292").
    version=$("$java" -version 2>&1 | awk -F'"' '/version/ {print $2; exit}')
    version=${version#1.}
    major=${version%%[!0-9]*}
    if [[ -n "$major" ]] && (( major >= 17 )); then
        echo "$java"
    fi
}

find_chromium() {
    if [[ -n "${MINIKAFKA_CHROMIUM:-}" && -x "${MINIKAFKA_CHROMIUM}" ]]; then
        echo "$MINIKAFKA_CHROMIUM"
    else
        command -v chromium || true
    fi
}

# Print the prefix for privileged commands ("" for root, "sudo -n"), or fail.
privilege() {
    [[ "${MINIKAFKA_NO_SYSTEM_INSTALL:-0}" != 1 ]] || return 1
    command -v apt-get >/dev/null 2>&1 || return 1
    if [[ $(id -u) == 0 ]]; then
        echo ""
    elif command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
        echo "sudo -n"
    else
        return 1
    fi
}

apt_install() {
    # Install the given Debian packages; apt's chatter goes to the log.
    local sudo=$1; shift
    echo "Installing Debian packages: $* (log: ${apt_log#"$PWD"/})"
    {
        $sudo apt-get update -q || true  # a stale mirror must not block an install that may still work
        $sudo env DEBIAN_FRONTEND=noninteractive \
            apt-get install -y -q --no-install-recommends "$@"
    } >"$apt_log" 2>&1
}

# Print the checked programs that cannot be found, space separated.
missing_of() {
    local tool found=()
    for tool in "$@"; do
        [[ -n "$("find_$tool")" ]] || found+=("$tool")
    done
    echo "${found[@]+"${found[@]}"}"
}

tools=("$@")
[[ ${#tools[@]} -gt 0 ]] || tools=(dot java chromium)
for tool in "${tools[@]}"; do
    debian_package "$tool" >/dev/null || {
        echo "ensure_system_deps.sh: unknown program '$tool' (expected dot, java or chromium)" >&2
        exit 2
    }
done

mkdir -p "$status_dir"
missing=$(missing_of "${tools[@]}")
attempted=""  # set when apt-get ran, so the final message can point at its log
if [[ -n "$missing" ]] && sudo=$(privilege); then
    attempted=1
    # shellcheck disable=SC2046,SC2086  # splitting the word lists is intended
    apt_install "$sudo" $(join_each " " debian_package $missing) || true  # judged below by what can be found
    # shellcheck disable=SC2086
    missing=$(missing_of $missing)
fi

for tool in "${tools[@]}"; do
    printf 'MINIKAFKA_%s=%q\n' "$(echo "$tool" | tr '[:lower:]' '[:upper:]')" "$("find_$tool")"
done >"$status_file.tmp"
mv "$status_file.tmp" "$status_file"

if [[ -n "$missing" ]]; then
    # shellcheck disable=SC2086
    names=$(join_each ", " describe $missing)
    # shellcheck disable=SC2086
    packages=$(join_each " " debian_package $missing)
    why=""
    [[ -z "$attempted" ]] || why=" (apt-get failed, see ${apt_log#"$PWD"/})"
    echo "minikafka: missing $names$why; install with 'sudo apt-get install $packages' (Debian/Ubuntu names); tests that need them will be skipped."
fi
exit 0
