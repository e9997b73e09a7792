"""The Parquet Bloom filters a keyed table's data files carry, sized so that small files stay small.

Iceberg 1.10's Spark writer gives Parquet a column's Bloom filter switch, its fpp and one table-wide
``write.parquet.bloom-filter-max-bytes``, but never a distinct-value count nor Parquet's adaptive
mode; without either, Parquet makes every filter exactly max-bytes large, whatever the row count.
With Iceberg's default (1 MiB) a one-row file of a table with two key columns was 2.1 MB.

So the size is a fixed trade-off, chosen for this project's lookups:
- Only the first key column gets a filter: the key lookup by scan prunes row groups with an IN list
  (or range) on the first key column alone, so filters on the other key columns were never read.
- 64 KiB: a one-row file is ~67 KB instead of 1.05 MB; a 100k-row file's filter still rejects
  about 84% of absent keys (1 MiB: nearly all). Tables whose files hold millions of rows and whose
  readers probe single keys can raise it with ``ALTER TABLE ... SET TBLPROPERTIES``.
"""

from __future__ import annotations

from iceberg_doris.ddl import KeysModel
from iceberg_doris.table_model import DorisTableModel

MAX_BYTES_PROPERTY = "write.parquet.bloom-filter-max-bytes"
ENABLED_PREFIX = "write.parquet.bloom-filter-enabled.column."
KEY_BLOOM_FILTER_BYTES = 64 * 1024


def key_bloom_filter_properties(model: DorisTableModel) -> dict[str, str]:
    """Iceberg table properties for the Bloom filter of a new keyed table (none for duplicate keys)."""
    if model.keys_model is KeysModel.DUPLICATE or not model.key_columns:
        return {}
    return {
        f"{ENABLED_PREFIX}{model.key_columns[0]}": "true",
        MAX_BYTES_PROPERTY: str(KEY_BLOOM_FILTER_BYTES),
    }
