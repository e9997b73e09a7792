"""Tests of the key index (iceberg_doris/engine/key_index/), mirroring its package."""
