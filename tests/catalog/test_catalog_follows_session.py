"""``iceberg_doris.catalog()`` opens the running session's catalog; ``iceberg_doris.catalog`` is a function.

Issue 39: after ``session(home=X)``, ``catalog()`` opened (and created) the default home. Issue 56:
``iceberg_doris.catalog`` was both a package and, through a swap of its module class, a function;
the package is now ``iceberg_doris.lake`` and the name is the function only.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import iceberg_doris
from iceberg_doris.lake.settings import HOME_ENV

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.spark
def test_catalog_without_arguments_opens_the_running_sessions_catalog(spark, namespace, lake_home, tmp_path, monkeypatch):
    elsewhere = tmp_path / "another-home"
    monkeypatch.setenv(HOME_ENV, str(elsewhere))  # what catalog() used to open instead
    spark.sql(f"CREATE TABLE {namespace}.t (id BIGINT) USING iceberg")
    spark.sql(f"INSERT INTO {namespace}.t VALUES (1), (2)")

    table = iceberg_doris.catalog().load_table(f"{namespace}.t")

    assert sorted(table.scan().to_arrow().column("id").to_pylist()) == [1, 2]
    assert not elsewhere.exists()  # no catalog was created at the environment's home


@pytest.mark.spark
def test_catalog_with_arguments_opens_what_they_name(spark, tmp_path):
    other = iceberg_doris.catalog(home=tmp_path / "other")
    assert other.list_namespaces() == []
    assert (tmp_path / "other" / "catalog.db").exists()


def test_catalog_is_one_function_and_the_package_modules_import_by_their_dotted_paths():
    script = textwrap.dedent(
        """
        import inspect
        import types
        import iceberg_doris.lake.settings
        import iceberg_doris.lake.pyiceberg_catalog
        import iceberg_doris.spark_session.runtime_jars
        import iceberg_doris
        from iceberg_doris import catalog

        assert iceberg_doris.lake.settings.CatalogSettings is iceberg_doris.CatalogSettings
        assert callable(iceberg_doris.spark_session.runtime_jars.resolve_runtime_jars)
        assert catalog is iceberg_doris.catalog is iceberg_doris.lake.pyiceberg_catalog.catalog
        assert isinstance(catalog, types.FunctionType)
        assert type(iceberg_doris.lake) is types.ModuleType  # a plain package, not callable
        assert list(inspect.signature(iceberg_doris.catalog).parameters) == [
            "home", "catalog_uri", "warehouse", "catalog_password_file"]
        print("ok")
        """
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.stdout.strip() == "ok", done.stderr


def test_catalog_opens_pyiceberg_on_the_home(tmp_path):
    opened = iceberg_doris.catalog(home=tmp_path)
    assert type(opened).__name__ == "SqlCatalog"
    assert (tmp_path / "catalog.db").exists()
