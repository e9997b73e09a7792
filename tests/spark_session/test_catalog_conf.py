"""The Spark settings that declare the catalog (no Spark needed)."""

from __future__ import annotations

import pytest

from iceberg_doris.lake.settings import CatalogSettings
from iceberg_doris.spark_session.catalog_conf import spark_catalog_conf, spark_catalog_secrets


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in ("ICEBERG_DORIS_HOME", "ICEBERG_DORIS_CATALOG_URI", "ICEBERG_DORIS_WAREHOUSE", "ICEBERG_DORIS_CATALOG_NAME",
                 "ICEBERG_DORIS_CATALOG_PASSWORD_FILE", "PGPASSWORD"):
        monkeypatch.delenv(name, raising=False)


def test_postgres_catalog_password_is_a_secret_setting_only(tmp_path):
    settings = CatalogSettings.resolve(home=tmp_path, catalog_uri="postgresql://lake:p%40ss@db.example:5433/meta")
    conf = spark_catalog_conf(settings)
    assert conf["spark.sql.catalog.iceberg.jdbc.user"] == "lake"
    # The password reaches a running driver only (launch settings land on its command line).
    assert not any("password" in key for key in conf)
    assert spark_catalog_secrets(settings) == {"spark.sql.catalog.iceberg.jdbc.password": "p@ss"}


def test_new_tables_default_to_format_v3_and_fresh_metadata(tmp_path):
    conf = spark_catalog_conf(CatalogSettings.resolve(home=tmp_path))
    assert conf["spark.sql.catalog.iceberg.table-default.format-version"] == "3"
    assert conf["spark.sql.catalog.iceberg.cache-enabled"] == "false"
    assert conf["spark.sql.catalog.iceberg.jdbc.journal_mode"] == "WAL"
