"""TPC-H data for suite (tpch): the schema as Doris's TPC-H tooling declares it, the ``.tbl`` files
``tpchgen-cli`` writes, the other formats made from the same lines, and the refresh files.

Everything is written once per scale factor under ``<data dir>/sf<SF>/`` and reused by later runs
(a ``.done`` file marks a complete set; generating SF 1 takes minutes, SF 10 much longer).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

# Columns in the order of the .tbl files (TPC-H's), with the types of apache/doris
# tools/tpch-tools/ddl/create-tpch-tables-sf1.sql. Every column is NOT NULL there except
# n_comment and r_comment.
FILE_COLUMNS: dict[str, list[tuple[str, str]]] = {
    "region": [("r_regionkey", "INT"), ("r_name", "VARCHAR(25)"), ("r_comment", "VARCHAR(152)")],
    "nation": [("n_nationkey", "INT"), ("n_name", "VARCHAR(25)"), ("n_regionkey", "INT"), ("n_comment", "VARCHAR(152)")],
    "supplier": [("s_suppkey", "INT"), ("s_name", "VARCHAR(25)"), ("s_address", "VARCHAR(40)"), ("s_nationkey", "INT"),
                 ("s_phone", "VARCHAR(15)"), ("s_acctbal", "DECIMAL(15, 2)"), ("s_comment", "VARCHAR(101)")],
    "customer": [("c_custkey", "INT"), ("c_name", "VARCHAR(25)"), ("c_address", "VARCHAR(40)"), ("c_nationkey", "INT"),
                 ("c_phone", "VARCHAR(15)"), ("c_acctbal", "DECIMAL(15, 2)"), ("c_mktsegment", "VARCHAR(10)"),
                 ("c_comment", "VARCHAR(117)")],
    "part": [("p_partkey", "INT"), ("p_name", "VARCHAR(55)"), ("p_mfgr", "VARCHAR(25)"), ("p_brand", "VARCHAR(10)"),
             ("p_type", "VARCHAR(25)"), ("p_size", "INT"), ("p_container", "VARCHAR(10)"), ("p_retailprice", "DECIMAL(15, 2)"),
             ("p_comment", "VARCHAR(23)")],
    "partsupp": [("ps_partkey", "INT"), ("ps_suppkey", "INT"), ("ps_availqty", "INT"), ("ps_supplycost", "DECIMAL(15, 2)"),
                 ("ps_comment", "VARCHAR(199)")],
    "orders": [("o_orderkey", "BIGINT"), ("o_custkey", "INT"), ("o_orderstatus", "VARCHAR(1)"), ("o_totalprice", "DECIMAL(15, 2)"),
               ("o_orderdate", "DATE"), ("o_orderpriority", "VARCHAR(15)"), ("o_clerk", "VARCHAR(15)"), ("o_shippriority", "INT"),
               ("o_comment", "VARCHAR(79)")],
    "lineitem": [("l_orderkey", "BIGINT"), ("l_partkey", "INT"), ("l_suppkey", "INT"), ("l_linenumber", "INT"),
                 ("l_quantity", "DECIMAL(15, 2)"), ("l_extendedprice", "DECIMAL(15, 2)"), ("l_discount", "DECIMAL(15, 2)"),
                 ("l_tax", "DECIMAL(15, 2)"), ("l_returnflag", "VARCHAR(1)"), ("l_linestatus", "VARCHAR(1)"), ("l_shipdate", "DATE"),
                 ("l_commitdate", "DATE"), ("l_receiptdate", "DATE"), ("l_shipinstruct", "VARCHAR(25)"), ("l_shipmode", "VARCHAR(10)"),
                 ("l_comment", "VARCHAR(44)")],
}
TABLES = tuple(FILE_COLUMNS)
NULLABLE = {"n_comment", "r_comment"}
FORMATS = ("tbl", "csv", "jsonl", "json", "parquet")  # csv: every field enclosed in "; json: one top-level array
DERIVED_TABLES = ("lineitem",)  # the tables also written as csv, jsonl, json and parquet
NEW_ORDER_OFFSET = 10_000_000_000  # RF1's order keys: the source order's key plus this (above any SF's keys)
UPDATE_EVERY = 100  # the 1% update: every 100th order's lines
CHANGED_COLUMN = "l_quantity"  # ... with this value plus one


def column_names(table: str) -> list[str]:
    return [name for name, _ in FILE_COLUMNS[table]]


def sf_label(sf: float) -> str:
    return f"{sf:g}"


@dataclass(frozen=True)
class TpchFiles:
    """Paths of one scale factor's data."""

    folder: Path
    sf: float

    def path(self, table: str, fmt: str = "tbl") -> str:
        return str(self.folder / f"{table}.{fmt}")

    def refresh(self, name: str) -> str:
        """``rf1_orders``, ``rf1_lineitem`` (new orders and their lines), ``rf2_orders`` (the deleted
        orders' rows: TPC-H's delete files hold the keys alone, but a ``merge_type => 'DELETE'``
        load is asked for every NOT NULL column), ``update_lineitem`` (1% update)."""
        return str(self.folder / f"{name}.tbl")

    def count(self, name: str) -> int:
        return int(json.loads((self.folder / "counts.json").read_text())[name])


def tpchgen_binary() -> str:
    """``tpchgen-cli`` from PATH or beside this Python (a virtualenv's bin)."""
    found = shutil.which("tpchgen-cli") or shutil.which("tpchgen-cli", path=str(Path(sys.executable).parent))
    if found is None:
        raise RuntimeError("tpchgen-cli was not found on PATH or beside this Python: install it with "
                           "`pip install tpchgen-cli` (scripts/setup.sh --test does)")
    return found


def ensure(data_dir: Path, sf: float, log=print) -> TpchFiles:
    """The data of scale factor ``sf``, generated on first use."""
    folder = data_dir / f"sf{sf_label(sf)}"
    files = TpchFiles(folder, sf)
    if (folder / ".done").exists():
        return files
    if folder.exists():
        shutil.rmtree(folder)  # a run stopped half-way: start over
    folder.mkdir(parents=True)
    log(f"generating TPC-H SF {sf_label(sf)} with tpchgen-cli into {folder}")
    subprocess.run([tpchgen_binary(), "--scale-factor", sf_label(sf), "--output-dir", str(folder)], check=True)
    for table in DERIVED_TABLES:
        log(f"  writing {table} as csv, jsonl, json and parquet")
        _derive(files, table)
    log("  writing the refresh files")
    counts = _refresh_files(files)
    counts.update({table: _line_count(files.path(table)) for table in TABLES})
    (folder / "counts.json").write_text(json.dumps(counts, indent=1))
    (folder / ".done").write_text("complete\n")
    return files


def _fields(line: str) -> list[str]:
    """The fields of a .tbl line (each ends with '|', the last one too)."""
    return line.rstrip("\n").split("|")[:-1]


def _line_count(path: str) -> int:
    with open(path, "rb") as handle:
        return sum(1 for _ in handle)


def _json_value(text: str, doris_type: str) -> str:
    # Numbers stay JSON numbers (as a JSON export of the table would hold them), the rest strings.
    return text if doris_type in ("INT", "BIGINT") or doris_type.startswith("DECIMAL") else json.dumps(text)


def _derive(files: TpchFiles, table: str) -> None:
    columns = FILE_COLUMNS[table]
    names = [json.dumps(name) for name, _ in columns]
    source = files.path(table)
    with open(source) as tbl, open(files.path(table, "csv"), "w") as csv, open(files.path(table, "jsonl"), "w") as jsonl, \
            open(files.path(table, "json"), "w") as array:
        array.write("[\n")
        first = True
        for line in tbl:
            fields = _fields(line)
            if any('"' in field for field in fields):
                raise ValueError(f"{source}: a field holds a double quote, which the enclosed CSV does not escape")
            csv.write('"' + '","'.join(fields) + '"\n')
            record = "{" + ",".join(f"{n}:{_json_value(v, t)}" for n, v, (_, t) in zip(names, fields, columns)) + "}"
            jsonl.write(record + "\n")
            array.write(("" if first else ",\n") + record)
            first = False
        array.write("\n]\n")
    _write_parquet(files, table)


def arrow_type(doris_type: str):  # noqa: ANN201 - a pyarrow DataType
    import pyarrow as pa

    if doris_type == "INT":
        return pa.int32()
    if doris_type == "BIGINT":
        return pa.int64()
    if doris_type == "DATE":
        return pa.date32()
    if doris_type.startswith("DECIMAL"):
        return pa.decimal128(15, 2)
    return pa.string()


def _write_parquet(files: TpchFiles, table: str) -> None:
    """Parquet with the columns' own types (as a Parquet export of the table would have them)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    columns = FILE_COLUMNS[table]
    names = [name for name, _ in columns] + ["__trailing"]
    types = {name: arrow_type(t) for name, t in columns} | {"__trailing": pa.string()}
    reader = pacsv.open_csv(
        files.path(table),
        read_options=pacsv.ReadOptions(column_names=names, block_size=64 << 20),
        parse_options=pacsv.ParseOptions(delimiter="|", quote_char=False),
        convert_options=pacsv.ConvertOptions(column_types=types, include_columns=names[:-1], strings_can_be_null=False,
                                             quoted_strings_can_be_null=False),
    )
    schema = pa.schema([pa.field(name, types[name], nullable=name in NULLABLE) for name, _ in columns])
    with pq.ParquetWriter(files.path(table, "parquet"), schema, compression="zstd") as writer:
        for batch in reader:
            writer.write_table(pa.Table.from_batches([batch]).cast(schema))


def _refresh_files(files: TpchFiles) -> dict[str, int]:
    """TPC-H's refresh functions at this SF: RF1 inserts SF * 1,500 new orders and their lines,
    RF2 deletes SF * 1,500 existing orders; and a 1% update (every 100th order's lines, quantity
    plus one). New keys are existing orders' keys plus NEW_ORDER_OFFSET; deleted orders are spread
    evenly over the order keys."""
    order_count = _line_count(files.path("orders"))
    changes = max(1, round(files.sf * 1500))
    step = max(1, order_count // changes)
    new_orders: set[str] = set()
    deleted: set[str] = set()
    updated: set[str] = set()
    quantity = column_names("lineitem").index(CHANGED_COLUMN)
    counts = {"rf1_orders": 0, "rf1_lineitem": 0, "rf2_orders": 0, "rf2_lineitem": 0, "update_lineitem": 0}
    with open(files.path("orders")) as orders, open(files.refresh("rf1_orders"), "w") as rf1, \
            open(files.refresh("rf2_orders"), "w") as rf2:
        for index, line in enumerate(orders):
            fields = _fields(line)
            key = fields[0]
            if index < changes:
                new_orders.add(key)
                rf1.write("|".join([str(int(key) + NEW_ORDER_OFFSET), *fields[1:]]) + "|\n")
                counts["rf1_orders"] += 1
            if index % step == step // 2 and counts["rf2_orders"] < changes:
                deleted.add(key)
                rf2.write(line)
                counts["rf2_orders"] += 1
            if index % UPDATE_EVERY == 0:
                updated.add(key)
    with open(files.path("lineitem")) as lines, open(files.refresh("rf1_lineitem"), "w") as rf1, \
            open(files.refresh("update_lineitem"), "w") as update:
        for line in lines:
            fields = _fields(line)
            key = fields[0]
            if key in new_orders:
                rf1.write("|".join([str(int(key) + NEW_ORDER_OFFSET), *fields[1:]]) + "|\n")
                counts["rf1_lineitem"] += 1
            if key in deleted:
                counts["rf2_lineitem"] += 1
            if key in updated:
                fields[quantity] = f"{float(fields[quantity]) + 1:.2f}"
                update.write("|".join(fields) + "|\n")
                counts["update_lineitem"] += 1
    return counts
