#!/usr/bin/env bash
# Sets up everything iceberg-doris needs on a fresh Debian machine, idempotently:
#   Debian packages (Java 17, jarjar, JDBC drivers; PostgreSQL with --test), a virtualenv in .venv
#   with the package and its dependencies, and the derived jars (relocated Jackson, Spark bridge).
# A second run checks and returns in seconds.
#   usage: scripts/setup.sh [--test]
set -euo pipefail
cd "$(dirname "$0")/.."

with_tests=0
[ "${1:-}" = "--test" ] && with_tests=1

say() { printf 'setup: %s\n' "$*" >&2; }

# 1. Debian packages the runtime needs (the JVM side: Java, jar relocation, catalog drivers).
packages=(libjarjar-java libxerial-sqlite-jdbc-java libxerial-sqlite-jdbc-jni libpostgresql-jdbc-java)
command -v javac >/dev/null 2>&1 || packages+=(openjdk-17-jdk-headless)
[ "$with_tests" = 1 ] && packages+=(postgresql)
missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ] && ! command -v sudo >/dev/null 2>&1; then
    say "missing Debian packages: ${missing[*]}"
    say "install them as root: apt-get update && apt-get install -y ${missing[*]}"
    exit 1
  fi
  run_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
  say "installing Debian packages: ${missing[*]}"
  run_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive run_root apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if ! command -v java >/dev/null 2>&1; then
  say "Java 17 is required and was not found on PATH after installing openjdk-17-jdk-headless."
  say "Install a JDK 17 and put its bin/ on PATH (or set JAVA_HOME), then run this again."
  exit 1
fi

# 2. Python: a virtualenv with the package (editable) and its test dependencies.
python=${PYTHON:-python3}
if ! "$python" -c 'import sys; sys.exit(0 if (3, 11) <= sys.version_info[:2] < (3, 13) else 1)'; then
  say "Python 3.11 or 3.12 is required; $("$python" --version 2>&1) found. Set PYTHON=/path/to/python3.11."
  exit 1
fi
[ -x .venv/bin/python ] || "$python" -m venv .venv
stamp=".venv/.installed-$(sha256sum pyproject.toml | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  say "installing Python dependencies into .venv"
  .venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'
  rm -f .venv/.installed-* && touch "$stamp"
fi

# 3. Derived jars, cached by a hash of their inputs.
.venv/bin/python -c "from iceberg_doris.catalog.runtime_jars import main; main()" >/dev/null
say "ready (.venv/bin/iceberg-doris, .venv/bin/python)"
