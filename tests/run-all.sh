#!/usr/bin/env bash
# The whole test suite, on a fresh Debian machine or a laptop: installs what the tests
# drive (shells, trash-cli, a second Node and CPython's own tests), then lints and tests.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_packages=(zsh dash busybox fish tmux make findutils trash-cli python3 python3-venv
  libpython3.11-testsuite nodejs libglib2.0-bin git sudo rsync gcc libc6-dev perl sed autoconf
  acl libnss-wrapper strace)
missing=()
for pkg in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "tests/run-all.sh: missing Debian packages: ${missing[*]} (tests needing them skip)" >&2
  fi
fi

python3 -m pip install -q -e '.[test]'
# The package's bytecode, once: the tests start safedel thousands of times, and where
# PYTHONDONTWRITEBYTECODE is set (or as uid 65534, in a copy it cannot write) each start
# would compile it again.
python3 -m compileall -q safedel >/dev/null
python3 -m ruff check .
python3 -m ruff format --check .
exec python3 -m pytest -q -p no:cacheprovider "$@"
