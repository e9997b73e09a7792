"""How home, catalog URI and warehouse resolve (no Spark needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from iceberg_doris.errors import ConfigurationError
from iceberg_doris.lake.settings import CatalogSettings


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in ("ICEBERG_DORIS_HOME", "ICEBERG_DORIS_CATALOG_URI", "ICEBERG_DORIS_WAREHOUSE", "ICEBERG_DORIS_CATALOG_NAME",
                 "ICEBERG_DORIS_CATALOG_PASSWORD_FILE", "PGPASSWORD"):
        monkeypatch.delenv(name, raising=False)


def test_embedded_default_lives_under_home(tmp_path):
    settings = CatalogSettings.resolve(home=tmp_path / "h")
    assert settings.kind == "sqlite"
    assert settings.jdbc_uri == f"jdbc:sqlite:{tmp_path}/h/catalog.db"
    assert settings.sqlalchemy_uri == f"sqlite:///{tmp_path}/h/catalog.db"
    assert settings.warehouse == f"file://{tmp_path}/h/warehouse"
    assert (tmp_path / "h" / "warehouse").is_dir()


def test_home_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("ICEBERG_DORIS_HOME", str(tmp_path / "env"))
    assert CatalogSettings.resolve().home == tmp_path / "env"


def test_default_home_is_in_the_users_home(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    assert CatalogSettings.resolve().home == tmp_path / ".iceberg-doris"


def test_argument_beats_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("ICEBERG_DORIS_HOME", str(tmp_path / "env"))
    assert CatalogSettings.resolve(home=tmp_path / "arg").home == tmp_path / "arg"


def test_postgres_url_gives_jdbc_and_sqlalchemy_forms(tmp_path):
    settings = CatalogSettings.resolve(home=tmp_path, catalog_uri="postgresql://lake:p%40ss@db.example:5433/meta")
    assert settings.kind == "postgresql"
    assert settings.jdbc_uri == "jdbc:postgresql://db.example:5433/meta"
    assert (settings.jdbc_user, settings.jdbc_password) == ("lake", "p@ss")
    assert settings.sqlalchemy_uri == "postgresql+psycopg2://lake:p%40ss@db.example:5433/meta"


def test_jdbc_postgres_url_with_credentials_in_query(tmp_path):
    settings = CatalogSettings.resolve(home=tmp_path, catalog_uri="jdbc:postgresql://h:5432/m?user=u&password=pw&ssl=true")
    assert settings.jdbc_uri == "jdbc:postgresql://h:5432/m?ssl=true"
    assert (settings.jdbc_user, settings.jdbc_password) == ("u", "pw")
    assert settings.sqlalchemy_uri == "postgresql+psycopg2://u:pw@h:5432/m"


def test_warehouse_uri_kept_and_path_made_absolute(tmp_path, monkeypatch):
    assert CatalogSettings.resolve(home=tmp_path, warehouse="s3://bucket/wh/").warehouse == "s3://bucket/wh"
    monkeypatch.chdir(tmp_path)
    assert CatalogSettings.resolve(home=tmp_path, warehouse="rel/wh").warehouse == f"file://{tmp_path}/rel/wh"


@pytest.mark.parametrize(
    ("uri", "message"),
    [
        ("mysql://u@h/db", "Unsupported catalog URI 'mysql://u@h/db': use sqlite:////path/catalog.db"),
        ("postgresql://h", "PostgreSQL catalog URI 'postgresql://h' needs a host and a database"),
        ("sqlite://", "SQLite catalog URI 'sqlite://' names no file"),
    ],
)
def test_bad_catalog_uri(tmp_path, uri, message):
    with pytest.raises(ConfigurationError, match="^" + message.replace("(", r"\(").replace(".", r"\.")):
        CatalogSettings.resolve(home=tmp_path, catalog_uri=uri)


def test_sqlite_uri_forms_agree(tmp_path):
    a = CatalogSettings.resolve(home=tmp_path, catalog_uri=f"sqlite:///{tmp_path}/c.db")
    b = CatalogSettings.resolve(home=tmp_path, catalog_uri=f"jdbc:sqlite:{tmp_path}/c.db")
    assert a.jdbc_uri == b.jdbc_uri and a.sqlalchemy_uri == b.sqlalchemy_uri
    assert Path(a.jdbc_uri.removeprefix("jdbc:sqlite:")).parent == tmp_path
