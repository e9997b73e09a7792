"""A real, throwaway PostgreSQL server (Debian's binaries) on a free loopback port."""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote


def _bin_dir() -> Path:
    candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))
    if not candidates:
        raise RuntimeError("PostgreSQL server binaries not found; run scripts/setup.sh --test (installs postgresql)")
    return candidates[-1].parent


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def postgres_server(database: str = "lake", password: str = "doris-test") -> Iterator[str]:
    """Starts a server in a fresh folder; yields ``postgresql://user:password@127.0.0.1:port/database``.

    The role ``lake`` needs ``password`` (scram-sha-256); it appears URL-encoded in the URL.
    """
    bindir = _bin_dir()
    # Not pytest's tmp_path: its parents are root-only, and the server runs as the postgres user.
    root = Path(tempfile.mkdtemp(prefix="iceberg-doris-pg-"))
    data, sockets = root / "pgdata", root / "pgsock"
    sockets.mkdir(parents=True)
    run_as: list[str] = []
    if os.geteuid() == 0:
        # PostgreSQL refuses to run as root; Debian's package creates the postgres user.
        owner = pwd.getpwnam("postgres")
        for path in (root, sockets):
            os.chown(path, owner.pw_uid, owner.pw_gid)
        run_as = [shutil.which("runuser") or "/usr/sbin/runuser", "-u", "postgres", "--"]
    password_file = root / "pw"
    password_file.write_text(password + "\n")
    os.chmod(password_file, 0o644)
    port = _free_port()

    def run(*command: str) -> None:
        subprocess.run(run_as + list(command), check=True, capture_output=True, text=True)

    run(str(bindir / "initdb"), "-D", str(data), "-U", "lake", "-A", "scram-sha-256", f"--pwfile={password_file}")
    run(
        str(bindir / "pg_ctl"), "-D", str(data), "-w", "-l", str(root / "server.log"),
        "-o", f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1", "start",
    )
    try:
        password_file.unlink()
        env = dict(os.environ, PGPASSWORD=password)
        deadline = time.monotonic() + 30
        while True:
            created = subprocess.run(
                [str(bindir / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "lake", database],
                env=env, capture_output=True, text=True,
            )
            if created.returncode == 0:
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"createdb failed: {created.stderr}")
            time.sleep(0.3)
        yield f"postgresql://lake:{quote(password, safe='')}@127.0.0.1:{port}/{database}"
    finally:
        subprocess.run(run_as + [str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "stop"], capture_output=True)
        shutil.rmtree(root, ignore_errors=True)
