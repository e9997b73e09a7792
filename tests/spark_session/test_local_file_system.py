"""In local mode the session writes local files without a ``chmod`` process each
(``LocalFileSystemWithoutChmod``): same permissions, same checksum files, real loads."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from iceberg_doris import doris
from iceberg_doris.spark_session.local_file_system import LOCAL_FILE_SYSTEM, replaces_local_file_system

UMASK = "fs.permissions.umask-mode"


@pytest.mark.parametrize(
    ("master", "chosen", "replaced"),
    [
        ("local[*]", None, True),
        ("local[2]", None, True),
        ("local", LOCAL_FILE_SYSTEM, True),
        ("local[*]", "org.example.MyLocalFileSystem", False),
        ("local-cluster[2,1,1024]", None, False),
        ("spark://host:7077", None, False),
        ("yarn", None, False),
    ],
)
def test_only_a_local_session_without_a_chosen_file_system_gets_it(master: str, chosen: str | None, replaced: bool) -> None:
    assert replaces_local_file_system(master, chosen) is replaced


@pytest.mark.spark
def test_files_a_load_writes_get_hadoops_permissions_and_checksums(spark, namespace: str) -> None:
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    assert jvm.org.apache.hadoop.fs.FileSystem.getLocal(conf).getClass().getName() == LOCAL_FILE_SYSTEM
    table = f"{namespace}.chmod_free"
    # A umask unlike the process's (022), so that a permission left unset would show.
    before = conf.get(UMASK)
    conf.set(UMASK, "027")
    try:
        doris.create_table(spark, ddl=f"CREATE TABLE {table} (k BIGINT NOT NULL, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
        doris.load(spark, table=table, query="SELECT id AS k, CAST(id AS STRING) AS v FROM range(100)")
        doris.load(spark, table=table, query="SELECT id AS k, 'new' AS v FROM range(50)")
    finally:
        if before is None:
            conf.unset(UMASK)
        else:
            conf.set(UMASK, before)
    assert spark.table(table).count() == 100
    assert spark.sql(f"SELECT count(*) FROM {table} WHERE v = 'new'").collect()[0][0] == 50

    location = Path(spark.sql(f"DESCRIBE TABLE EXTENDED {table}").where("col_name = 'Location'").collect()[0][1].removeprefix("file:"))
    written = [p for p in location.rglob("*") if p.is_file() and not p.name.endswith(".crc")]
    assert any(p.suffix == ".parquet" for p in written) and any(p.name.endswith(".metadata.json") for p in written)
    for path in written:
        # What Hadoop's own chmod would have set: 0666 less the umask.
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o640, path
        assert (path.parent / f".{path.name}.crc").exists(), f"no checksum file beside {path}"
    for directory in (location / "data", location / "metadata"):
        assert stat.S_IMODE(os.stat(directory).st_mode) == 0o750, directory


@pytest.mark.spark
def test_a_permission_posix_cannot_express_goes_through_hadoops_chmod(spark) -> None:
    jvm = spark.sparkContext._jvm
    posix_of = jvm.io.icebergdoris.hadoop.LocalFileSystemWithoutChmod.posixOf
    permission = jvm.org.apache.hadoop.fs.permission.FsPermission
    assert sorted(str(p) for p in posix_of(permission("640"))) == ["GROUP_READ", "OWNER_READ", "OWNER_WRITE"]
    assert sorted(str(p) for p in posix_of(permission("751"))) == [
        "GROUP_EXECUTE", "GROUP_READ", "OTHERS_EXECUTE", "OWNER_EXECUTE", "OWNER_READ", "OWNER_WRITE"
    ]
    assert posix_of(permission("1777")) is None
