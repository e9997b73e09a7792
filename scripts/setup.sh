#!/usr/bin/env bash
# Sets up everything iceberg-doris needs on a fresh Debian machine, idempotently:
#   Debian packages (Java 17 and Maven; PostgreSQL with --test), a virtualenv in .venv with the
#   package on the default Spark line, the bridge jar (built with Maven), and the Maven packages
#   Spark resolves at a session's start (Iceberg runtime, JDBC drivers), fetched once into Ivy's cache.
# With --test it also makes .venv-spark35 and .venv-spark40, the other supported Spark lines, and
# fetches what the object-storage tests use: the jars of an s3:// session (S3FileIO, s3a) and the
# S3-compatible server they run against (S3Proxy, into build/s3proxy/).
# A second run checks and returns in seconds.
#   usage: scripts/setup.sh [--test]
set -euo pipefail
cd "$(dirname "$0")/.."

with_tests=0
[ "${1:-}" = "--test" ] && with_tests=1

say() { printf 'setup: %s\n' "$*" >&2; }

# 1. Debian packages: a JDK (Spark runs on it; Maven builds the bridge with it) and Maven.
packages=()
command -v javac >/dev/null 2>&1 || packages+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null 2>&1 || packages+=(maven)
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

# 2. Python: a virtualenv per Spark line with the package (editable) and its test dependencies.
python=${PYTHON:-python3}
if ! "$python" -c 'import sys; sys.exit(0 if (3, 11) <= sys.version_info[:2] < (3, 13) else 1)'; then
  say "Python 3.11 or 3.12 is required; $("$python" --version 2>&1) found. Set PYTHON=/path/to/python3.11."
  exit 1
fi
# make_venv DIR PYSPARK_PIN EXTRAS: the package with that PySpark ('' = what pip picks: the default
# line) and those extras.
make_venv() {
  local dir=$1 pin=$2 extras=$3
  [ -x "$dir/bin/python" ] || "$python" -m venv "$dir"
  local stamp="$dir/.installed-$( (cat pyproject.toml; echo "$pin $extras") | sha256sum | cut -c1-16)"
  if [ ! -f "$stamp" ]; then
    say "installing Python dependencies into $dir${pin:+ ($pin)}"
    # shellcheck disable=SC2086
    "$dir/bin/python" -m pip install -q --disable-pip-version-check -e ".[$extras]" ${pin:+"$pin"}
    rm -f "$dir"/.installed-* && touch "$stamp"
  fi
  # The bridge jar (built with Maven the first time), then the Maven packages into Ivy's cache.
  "$dir/bin/python" -m iceberg_doris.spark_session.prefetch >&2
}
# Spark Connect's client is tested on the default line only (PySpark 3.5's pins NumPy 1, which the
# pyarrow the package needs no longer takes).
make_venv .venv "" "test,connect-client"
if [ "$with_tests" = 1 ]; then
  make_venv .venv-spark35 "pyspark>=3.5,<3.6" "test"
  make_venv .venv-spark40 "pyspark>=4.0,<4.1" "test"
  .venv/bin/python -m iceberg_doris.spark_session.prefetch --s3 >&2
  # S3Proxy and its dependencies, copied by Maven from its cache; again only when the pom changed.
  s3proxy_pom=tests/objectstore/s3proxy-pom.xml
  s3proxy_stamp="build/s3proxy/.pom-$(sha256sum "$s3proxy_pom" | cut -c1-16)"
  if [ ! -f "$s3proxy_stamp" ]; then
    say "fetching S3Proxy (the object-storage tests' S3 server) into build/s3proxy"
    rm -rf build/s3proxy
    mvn -q -B -f "$s3proxy_pom" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$PWD/build/s3proxy"
    touch "$s3proxy_stamp"
  fi
fi
say "ready (.venv/bin/iceberg-doris, .venv/bin/python)"
