"""Whole files and byte ranges read and written through a table's ``FileIO`` in Spark's JVM, so
they work on any storage Iceberg does (delete files, deletion vectors' Puffin files)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject
from iceberg_doris.errors import DeletionVectorFormatError


def read_file_range(
    iceberg: IcebergJava, table: JavaObject, location: str, offset: int = 0, length: int | None = None
) -> bytes:
    """Bytes of a file read through ``table.io()`` (to its end when ``length`` is None). They come
    through a local file: py4j moves bytes at ~0.1 s per MB."""
    with _local_file() as local:
        iceberg.helpers.FileBytes.copyToLocal(table, location, offset, -1 if length is None else length, local)
        data = Path(local).read_bytes()
    if length is not None and len(data) != length:
        raise DeletionVectorFormatError(f"{location} ends before byte {offset + length} (read {len(data)} of {length})")
    return data


def write_file(iceberg: IcebergJava, table: JavaObject, location: str, data: bytes) -> None:
    """Creates ``location`` through ``table.io()`` holding ``data`` (handed over in a local file).
    A failed write leaves no file behind (as far as the storage allows)."""
    with _local_file() as local:
        Path(local).write_bytes(data)
        iceberg.helpers.FileBytes.copyFromLocal(table, local, location)


@contextmanager
def _local_file() -> Iterator[str]:
    """A temporary file both the Python driver and its JVM (same host) can use; removed after."""
    handle, path = tempfile.mkstemp(prefix="iceberg-doris-", suffix=".bytes")
    os.close(handle)
    try:
        yield path
    finally:
        os.unlink(path)
