"""A real, throwaway S3-compatible server (S3Proxy with its filesystem blobstore) on a free loopback port.

``scripts/setup.sh --test`` copies S3Proxy and its dependencies into ``build/s3proxy/``
(``tests/objectstore/s3proxy-pom.xml``). The server checks AWS v2/v4 signatures against a key pair
made here and written only to its owner-only properties file: never a command line or a log.
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

JAR_DIR = Path(__file__).resolve().parents[2] / "build" / "s3proxy"
LOG_CONFIG = Path(__file__).resolve().parents[1] / "objectstore" / "s3proxy-logback.xml"
MAIN_CLASS = "org.gaul.s3proxy.Main"
START_TIMEOUT_S = 60.0


@dataclass(frozen=True, repr=False)
class S3Server:
    """A running server: its endpoint and the one key pair it accepts."""

    endpoint: str
    access_key: str
    secret_key: str
    region: str = "us-east-1"

    def __repr__(self) -> str:  # the secret stays out of pytest's failure output
        return f"S3Server(endpoint={self.endpoint!r}, access_key={self.access_key!r})"

    def environment(self) -> dict[str, str]:
        """The standard AWS variables that point a client at this server."""
        return {
            "AWS_ENDPOINT_URL_S3": self.endpoint,
            "AWS_ACCESS_KEY_ID": self.access_key,
            "AWS_SECRET_ACCESS_KEY": self.secret_key,
            "AWS_REGION": self.region,
        }

    def filesystem(self) -> "object":
        """pyarrow's S3 filesystem on this server (to put source files and look at objects)."""
        from pyarrow import fs

        return fs.S3FileSystem(
            access_key=self.access_key,
            secret_key=self.secret_key,
            endpoint_override=self.endpoint,
            region=self.region,
            scheme="http",
            allow_bucket_creation=True,
        )

    def create_bucket(self, bucket: str) -> None:
        self.filesystem().create_dir(bucket)


def installed() -> bool:
    return any(JAR_DIR.glob("s3proxy-*.jar"))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def s3_server(root: Path) -> Iterator[S3Server]:
    """Starts S3Proxy with its blobs under ``root``; stops it on exit."""
    if not installed():
        raise RuntimeError(f"S3Proxy is not in {JAR_DIR}; run ./scripts/setup.sh --test")
    port = _free_port()
    server = S3Server(f"http://127.0.0.1:{port}", f"test{secrets.token_hex(6)}", secrets.token_urlsafe(24))
    blobs = root / "blobs"
    blobs.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="iceberg-doris-s3-"))  # mode 0700
    properties = folder / "s3proxy.properties"
    descriptor = os.open(properties, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as out:
        out.write(
            f"s3proxy.endpoint={server.endpoint}\n"
            "s3proxy.authorization=aws-v2-or-v4\n"
            f"s3proxy.identity={server.access_key}\n"
            f"s3proxy.credential={server.secret_key}\n"
            "jclouds.provider=filesystem\n"
            f"jclouds.filesystem.basedir={blobs}\n"
        )
    log = open(root / "s3proxy.log", "wb")
    process = subprocess.Popen(
        ["java", "-Xmx256m", f"-Dlogback.configurationFile={LOG_CONFIG}", "-cp", f"{JAR_DIR}/*", MAIN_CLASS, "--properties", str(properties)],
        stdout=log, stderr=subprocess.STDOUT,
    )
    try:
        _wait_until_it_answers(server.endpoint, process, root / "s3proxy.log")
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
        properties.unlink(missing_ok=True)
        folder.rmdir()


def _wait_until_it_answers(endpoint: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"S3Proxy exited with {process.returncode}: {log.read_text()[-2000:]}")
        try:
            urllib.request.urlopen(endpoint, timeout=2)
            return
        except urllib.error.HTTPError:
            return  # an S3 error answer (403 for an unsigned request): it serves
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"S3Proxy did not answer at {endpoint} within {START_TIMEOUT_S:.0f} s") from None
            time.sleep(0.2)
