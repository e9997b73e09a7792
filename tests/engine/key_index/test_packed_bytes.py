"""Encoded keys travel packed (PackedBytes): what is unpacked is exactly what was packed, across
block boundaries, with empty and NULL arrays and arrays longer than a block."""

from __future__ import annotations

import random

import pytest

from iceberg_doris.engine.iceberg_java import IcebergJava

pytestmark = pytest.mark.spark


def java_arrays(spark, arrays: list[bytes | None]):
    gateway = spark.sparkContext._gateway
    java = gateway.new_array(gateway.jvm.byte, len(arrays), 0)
    for i, value in enumerate(arrays):
        java[i] = None if value is None else bytearray(value)
    return java


@pytest.mark.parametrize("block_bytes", [1, 5, 64, 1 << 26])
def test_unpacked_arrays_equal_the_packed_ones(spark, block_bytes):
    generator = random.Random(block_bytes)
    arrays: list[bytes | None] = [b"", None, b"\x00", b"\x00\x01\xff", b"x" * 40]
    arrays += [bytes(generator.randrange(256) for _ in range(generator.randrange(12))) for _ in range(200)]
    arrays += [None, b""]
    packed = IcebergJava(spark).jvm.io.icebergdoris.keyindex.PackedBytes.of(java_arrays(spark, arrays), len(arrays), block_bytes)
    unpacked = [None if value is None else bytes(value) for value in packed.unpack()]
    assert unpacked == arrays
    if block_bytes == 5:
        assert packed.blockCount() > 10  # the boundaries were crossed
    if block_bytes == 1 << 26:
        assert packed.blockCount() == 1


def test_only_the_first_count_arrays_are_packed(spark):
    arrays = [b"a", b"bc", b"def"]
    packed = IcebergJava(spark).jvm.io.icebergdoris.keyindex.PackedBytes.of(java_arrays(spark, arrays), 2, 8)
    assert [bytes(value) for value in packed.unpack()] == [b"a", b"bc"]
