#!/usr/bin/env bash
# Make sure .venv exists and holds an editable install of minikafka with its
# test extras, matching the current pyproject.toml.
#
# Re-runs are cheap: after a successful install the SHA-256 of pyproject.toml
# is written to .make-stamps/venv-install.sha256, and as long as the venv's
# interpreter still runs and the hash is unchanged nothing is reinstalled.
# A venv whose interpreter no longer runs (e.g. the Python it was made from
# was removed) is rebuilt from scratch.  The stamp is written only after pip
# succeeded, so an interrupted install is simply retried next time.
#
# Environment: MINIKAFKA_PYTHON chooses the interpreter (see find_python.sh);
# MINIKAFKA_VENV and MINIKAFKA_STAMP_DIR override the venv and stamp
# directories (defaults .venv and .make-stamps; the tests use them).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

venv=${MINIKAFKA_VENV:-.venv}
stamp_dir=${MINIKAFKA_STAMP_DIR:-.make-stamps}
stamp=$stamp_dir/venv-install.sha256
wanted=$( (sha256sum pyproject.toml 2>/dev/null || shasum -a 256 pyproject.toml) | cut -d' ' -f1)

venv_works() {
    "$venv/bin/python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' \
        >/dev/null 2>&1
}

if ! venv_works; then
    python=$(bash scripts/find_python.sh)
    echo "Creating $venv with $python ($("$python" --version 2>&1))"
    rm -rf "$venv" "$stamp"
    "$python" -m venv "$venv"
fi

if [[ -f "$stamp" && "$(cat "$stamp")" == "$wanted" ]]; then
    exit 0  # environment already matches this pyproject.toml
fi

if [[ -f "$stamp" ]]; then
    echo "pyproject.toml changed: updating $venv (pip install -e '.[test]')"
else
    echo "Installing minikafka and its test dependencies into $venv (pip install -e '.[test]'; about 600 MB to download the first time)"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e '.[test]'

mkdir -p "$stamp_dir"
printf '%s\n' "$wanted" > "$stamp.tmp"
mv "$stamp.tmp" "$stamp"
