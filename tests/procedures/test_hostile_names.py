"""Names are data, never paths: hostile labels, table, namespace and partition names are refused
with a clear message or stored harmlessly, and every file the product writes stays in its place.

The test snapshots every file under the lake home, runs loads (with rejected rows, so error rows
are written), temp partitions, auto partitions and create_table with traversal (``../../x``),
absolute paths, NUL bytes, very long names, quotes, backquotes, spaces and Unicode, then checks
that each new file is inside the folder of a table the test made or inside that table's
``_doris_load_errors/<db>/<table>/`` folder, that a sibling table's files are untouched, and that
nothing appeared at the absolute paths the names pointed to.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from iceberg_doris import doris
from iceberg_doris.engine.iceberg_java import IcebergJava
from iceberg_doris.engine.safe_paths import path_segment
from iceberg_doris.errors import DorisError, InvalidTableDefinitionError, PartitionError, ProcedureArgumentError

pytestmark = pytest.mark.spark


def files_under(root: Path) -> dict[str, tuple[int, int]]:
    """Every file below ``root`` (relative path -> size, mtime in ns)."""
    found = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder, name)
            info = path.stat()
            found[str(path.relative_to(root))] = (info.st_size, info.st_mtime_ns)
    return found


def hostile_names(escape_target: str) -> list[str]:
    return [
        "../../victim",
        "../victim",
        "..",
        ".",
        escape_target,
        "a/b",
        "a\x00b",
        "x" * 1000,
        "a`b",
        "it's",
        'say "hi"',
        "two words",
        "标签",
        "a:b",
        "a\nb",
        "",
    ]


@pytest.fixture
def escape_target() -> str:
    target = f"/tmp/iceberg_doris_escape_{uuid.uuid4().hex}"
    yield target
    assert not os.path.exists(target), f"a hostile name created {target}"


def test_hostile_names_are_refused_or_stored_harmlessly(spark, lake_home, escape_target):
    ns = f"hostile_{uuid.uuid4().hex[:8]}"
    warehouse = Path(lake_home) / "warehouse"
    spark.sql(f"CREATE NAMESPACE {ns}")
    doris.create_table(
        spark,
        ddl=f"""CREATE TABLE {ns}.victim (k INT NOT NULL, v VARCHAR(3)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1""",
    )
    doris.load(spark, table=f"{ns}.victim", query="SELECT 1 AS k, 'abc' AS v", label="victim_rows")
    victim_files = files_under(warehouse / ns / "victim")
    assert any(name.endswith(".parquet") for name in victim_files)
    before = files_under(Path(lake_home))
    made: list[str] = []  # tables made here (not the victim): their folders may gain files

    # 1. Labels: Doris's rule, refused before anything is read or written.
    # (':' is allowed in Doris labels: "a:b" is a label, kept as data below.)
    for label in [n for n in hostile_names(escape_target) if n != "a:b"] + ["/", "victim/../../x", "%2e%2e", "*", "[a]"]:
        with pytest.raises(ProcedureArgumentError, match=r"^Label format error\. regex: .* A label is 1 to 128 letters"):
            doris.load(spark, table=f"{ns}.victim", query="SELECT 2 AS k, 'toolong' AS v", label=label, max_filter_ratio=1.0)
        with pytest.raises(ProcedureArgumentError, match=r"^Label format error"):
            doris.insert_overwrite(spark, table=f"{ns}.victim", query="SELECT 2, 'x'", label=label)

    # 2. Table and namespace names: refused at creation unless every part can serve them.
    for name in hostile_names(escape_target):
        quoted = "`" + name.replace("`", "``") + "`"
        if name == "标签":  # Unicode letters are letters (Doris's Unicode names): a table like any other
            doris.create_table(spark, ddl=f"CREATE TABLE {ns}.{quoted} (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1")
            made.append(name)
            continue
        with pytest.raises(DorisError, match=r"Incorrect table name|Empty quoted identifier"):
            doris.create_table(spark, ddl=f"CREATE TABLE {ns}.{quoted} (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1")
    # Namespaces another engine made (no folder yet), through Iceberg's catalog API: Spark 4's SQL
    # refuses some of these names itself.
    catalog = IcebergJava(spark).catalog()
    namespace_of = spark.sparkContext._jvm.org.apache.iceberg.catalog.Namespace
    for name in ["bad ns", "x" * 300, "../../etc", "tab\there"]:
        levels = spark.sparkContext._gateway.new_array(spark.sparkContext._jvm.java.lang.String, 1)
        levels[0] = name
        catalog.createNamespace(namespace_of.of(levels))
        with pytest.raises(InvalidTableDefinitionError, match=r"^Incorrect database name"):
            doris.create_table(spark, ddl=f"CREATE TABLE `{name}`.t (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1")
        catalog.dropNamespace(namespace_of.of(levels))
    assert sorted(r[0] for r in spark.sql(f"SHOW TABLES IN {ns}").select("tableName").collect()) == ["victim", "标签"]

    # 3. Tables another engine made with odd names still work, and their error rows land in
    #    one encoded folder per name under _doris_load_errors/<db>/.
    for odd in ["two words", "dot.ted", "it's", "a:b"]:
        spark.sql(f"CREATE TABLE {ns}.`{odd}` (k INT, v INT) USING iceberg")
        made.append(odd)
        quoted = "`" + odd.replace("`", "``") + "`"
        result = doris.load(
            spark, table=f"{ns}.{quoted}", query="SELECT * FROM VALUES ('1', '2'), ('x', '3') AS t(k, v)",
            strict_mode=True, max_filter_ratio=0.5, label="odd:rows",
        )[0]
        assert (result.loaded_rows, result.filtered_rows) == (1, 1)
        expected = f"_doris_load_errors/{ns}/{path_segment(odd)}/odd%3Arows"
        assert result.error_rows_path.endswith("/warehouse/" + expected), result.error_rows_path
        assert (warehouse / expected).is_dir()
        assert spark.sql(f"SELECT k, v FROM {ns}.{quoted}").collect()[0] == (1, 2)

    # 4. Partition names: Doris's rule (they also name branches doris_temp_<name>).
    doris.create_table(
        spark,
        ddl=f"""CREATE TABLE {ns}.parts (d DATE NOT NULL, city VARCHAR(100)) DUPLICATE KEY(d)
        PARTITION BY RANGE(d) (PARTITION p1 VALUES LESS THAN ("2024-02-01")) DISTRIBUTED BY HASH(d) BUCKETS 1""",
    )
    made.append("parts")
    for name in hostile_names(escape_target) + ["doris_temp_../x", "-p"]:
        for temporary in (False, True):
            with pytest.raises(PartitionError, match=r"^Incorrect partition name .*: a partition name is 1 to 128 letters"):
                doris.add_partition(
                    spark, table=f"{ns}.parts", partition=name, values_range=["2024-02-01", "2024-03-01"], temporary=temporary
                )
        with pytest.raises(DorisError, match=r"does not exist"):
            doris.load(spark, table=f"{ns}.parts", query="SELECT date'2024-01-02' AS d, 'x' AS city", temporary_partitions=[name])
        with pytest.raises(PartitionError, match=r"^Error in list of partitions to .*: the table has no temporary partition"):
            doris.drop_partition(spark, table=f"{ns}.parts", partition=name, temporary=True)
    branches = {r.name for r in spark.sql(f"SELECT name FROM {ns}.parts.refs").collect()}
    assert branches <= {"main"}  # no doris_temp_* branch was made

    # 5. Hostile values reach partitions only as data: LIST values and auto LIST partitions.
    doris.create_table(
        spark,
        ddl=f"""CREATE TABLE {ns}.auto_list (city VARCHAR(2000) NOT NULL, n INT) DUPLICATE KEY(city)
        AUTO PARTITION BY LIST (city) () DISTRIBUTED BY HASH(n) BUCKETS 1""",
    )
    made.append("auto_list")
    values = ["../../victim", escape_target, "a/b", "..", "it's", "a`b", "标签", "a\x00b", "y" * 40]
    frame = spark.createDataFrame([(v, i) for i, v in enumerate(values)], "city string, n int")
    doris.load(spark, table=f"{ns}.auto_list", source=frame)
    stored = sorted(r.city for r in spark.sql(f"SELECT city FROM {ns}.auto_list").collect())
    assert stored == sorted(values)
    names = [r.partition_name for r in doris.show_partitions(spark, table=f"{ns}.auto_list")]
    assert len(names) == len(values) and all(n.startswith("p") and n.replace("_", "").isalnum() and n.isascii() for n in names)
    doris.add_partition(spark, table=f"{ns}.parts", partition="tp_ok", values_range=["2024-01-01", "2024-02-01"], temporary=True)
    doris.load(spark, table=f"{ns}.parts", query=f"SELECT date'2024-01-03' AS d, '{escape_target}' AS city", temporary_partitions=["tp_ok"])

    # Every new file is inside a folder of a table made here or its error-rows folder; the
    # victim's files are exactly as they were; the catalog file is the only other change.
    after = files_under(Path(lake_home))
    allowed = [f"warehouse/{ns}/{t}/" for t in made]  # Iceberg's own table locations
    allowed += [f"warehouse/_doris_load_errors/{ns}/{path_segment(t)}/" for t in made]
    new_or_changed = {path for path, info in after.items() if before.get(path) != info}
    outside = sorted(
        path for path in new_or_changed
        if not path.startswith("catalog.db") and not any(path.startswith(prefix) for prefix in allowed)
    )
    assert outside == []
    assert files_under(warehouse / ns / "victim") == victim_files
    assert spark.sql(f"SELECT * FROM {ns}.victim").collect() == [(1, "abc")]
