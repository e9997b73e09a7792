"""The object-storage tests' S3 server: one real S3-compatible server (S3Proxy) per test module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.s3_server import S3Server, s3_server

BUCKET = "lake"


@pytest.fixture(scope="module")
def s3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    """A running server with the bucket ``lake``; its key pair accepts every request, others none."""
    with s3_server(tmp_path_factory.mktemp("s3")) as server:
        server.create_bucket(BUCKET)
        yield server
