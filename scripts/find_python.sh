#!/usr/bin/env bash
# Print the path of the Python interpreter that should build .venv.
#
# If $MINIKAFKA_PYTHON is set, only that interpreter is considered.
# Otherwise the candidates are, in order: python3.13, python3.12, python3.11
# and plain python3.  A candidate is accepted only if it actually runs and
# reports a version >= 3.11: version managers such as pyenv put shims named
# python3.13 on PATH that fail when that version is not selected, so finding
# the name with "command -v" proves nothing.
#
# On success: exit status 0, the interpreter's real path on stdout.
# On failure: exit status 1, one explanatory line on stderr.
set -euo pipefail

accepts() {
    # Succeeds, printing the interpreter's real path, only for Python >= 3.11.
    command -v "$1" >/dev/null 2>&1 || return 1
    "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' \
        >/dev/null 2>&1 || return 1
    "$1" -c 'import sys; print(sys.executable)' 2>/dev/null
}

if [[ -n "${MINIKAFKA_PYTHON:-}" ]]; then
    # An explicit choice is honoured or refused, never silently replaced.
    accepts "$MINIKAFKA_PYTHON" && exit 0
    echo "MINIKAFKA_PYTHON=$MINIKAFKA_PYTHON does not run as Python >= 3.11; point it at python3.11 or newer, or unset it." >&2
    exit 1
fi

candidates=(python3.13 python3.12 python3.11 python3)
for candidate in "${candidates[@]}"; do
    accepts "$candidate" && exit 0
done

echo "minikafka needs Python >= 3.11, but none of ${candidates[*]} on PATH runs as 3.11 or newer; install Python 3.11, 3.12 or 3.13 (or set MINIKAFKA_PYTHON=/path/to/python3.x) and try again." >&2
exit 1
