"""Catalog passwords never in messages, ``repr`` or launch settings; other channels for them (no Spark)."""

from __future__ import annotations

import os

import pytest

from iceberg_doris.cli import main
from iceberg_doris.errors import ConfigurationError
from iceberg_doris.lake.masking import mask_secrets, remember_secret
from iceberg_doris.lake.settings import CatalogSettings
from iceberg_doris.spark_session.catalog_conf import spark_catalog_secrets
from iceberg_doris.spark_session.secrets import is_secret_setting, split_secret_settings


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in ("ICEBERG_DORIS_HOME", "ICEBERG_DORIS_CATALOG_URI", "ICEBERG_DORIS_WAREHOUSE", "ICEBERG_DORIS_CATALOG_NAME",
                 "ICEBERG_DORIS_CATALOG_PASSWORD_FILE", "PGPASSWORD"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("postgresql://lake:pw@db:5432/meta", "postgresql://lake:***@db:5432/meta"),
        ("postgresql+psycopg2://lake:p%40ss@db/meta", "postgresql+psycopg2://lake:***@db/meta"),
        ("postgresql://lake:p@ss:w/rd@db/meta", "postgresql://lake:***@db/meta"),  # unquoted '@' and '/' in it
        ("postgresql://lake:a@b@db/meta", "postgresql://lake:***@db/meta"),
        ("postgresql:/lake:pw@db/meta", "postgresql:/lake:***@db/meta"),
        ("postgresql:lake:pw@db/meta", "postgresql:lake:***@db/meta"),
        ("jdbc:postgresql://db/meta?user=lake&password=pw&ssl=true", "jdbc:postgresql://db/meta?user=lake&password=***&ssl=true"),
        ("jdbc:postgresql://db/meta?sslpassword=x;token=y", "jdbc:postgresql://db/meta?sslpassword=***;token=***"),
        ("catalog 'postgresql://lake:pw@db/meta' is down", "catalog 'postgresql://lake:***@db/meta' is down"),
        ("postgresql://lake@db:5432/meta", "postgresql://lake@db:5432/meta"),
        ("postgresql://db:5432/meta", "postgresql://db:5432/meta"),
        ("sqlite:////tmp/x:y@z/catalog.db", "sqlite:////tmp/x:y@z/catalog.db"),
        ("file:///lake/warehouse", "file:///lake/warehouse"),
    ],
)
def test_mask_secrets_in_uris(text, masked):
    assert mask_secrets(text) == masked


def test_remembered_secret_is_masked_anywhere_plain_or_url_encoded():
    remember_secret("Sw0rd/fish")
    assert mask_secrets("FATAL: bad password Sw0rd/fish (Sw0rd%2Ffish)") == "FATAL: bad password *** (***)"
    remember_secret("lake")  # too short to mask in free text without garbling it; URIs still are
    assert mask_secrets("Table lake.orders on postgresql://lake:lake@db/m") == "Table lake.orders on postgresql://lake:***@db/m"


def test_repr_of_settings_masks_the_password(tmp_path):
    settings = CatalogSettings.resolve(home=tmp_path, catalog_uri="postgresql://lake:Repr-Secret-1@db.example:5433/meta")
    assert settings.jdbc_password == "Repr-Secret-1"
    assert "Repr-Secret-1" not in repr(settings)
    assert "jdbc_password=***" in repr(settings)
    assert "postgresql+psycopg2://lake:***@db.example:5433/meta" in repr(settings)
    assert "Repr-Secret-1" not in str(settings)


@pytest.mark.parametrize(
    ("uri", "message"),
    [
        ("postgresqll://lake:Typo-Secret-1@db/meta", "Unsupported catalog URI 'postgresqll://lake:***@db/meta': use"),
        ("postgresql://lake:Typo-Secret-1@db", "PostgreSQL catalog URI 'postgresql://lake:***@db' needs a host and a database"),
        ("postgresql:/lake:Typo-Secret-1@db/meta", "PostgreSQL catalog URI 'postgresql:/lake:***@db/meta' needs a host"),
        ("postgresql://lake:Typo-Secret-1@db:port/meta", "Catalog URI 'postgresql://lake:***@db:port/meta' is malformed ("),
        ("postgresql://lake:Typo-Secret-1@[db/meta", "Catalog URI 'postgresql://lake:***@[db/meta' is malformed ("),
    ],
)
def test_bad_catalog_uri_messages_mask_the_password(tmp_path, uri, message):
    with pytest.raises(ConfigurationError) as raised:
        CatalogSettings.resolve(home=tmp_path, catalog_uri=uri)
    assert str(raised.value).startswith(message)
    assert "Typo-Secret-1" not in str(raised.value)


def test_password_file_and_pgpassword_when_the_uri_has_none(tmp_path, monkeypatch):
    secret_file = tmp_path / "pw"
    secret_file.write_text("From-File-1\n")
    uri = "postgresql://lake@db:5432/meta"

    from_file = CatalogSettings.resolve(home=tmp_path, catalog_uri=uri, catalog_password_file=secret_file)
    assert from_file.jdbc_password == "From-File-1"
    assert from_file.sqlalchemy_uri == "postgresql+psycopg2://lake:From-File-1@db:5432/meta"
    assert spark_catalog_secrets(from_file) == {"spark.sql.catalog.iceberg.jdbc.password": "From-File-1"}

    monkeypatch.setenv("ICEBERG_DORIS_CATALOG_PASSWORD_FILE", str(secret_file))
    assert CatalogSettings.resolve(home=tmp_path, catalog_uri=uri).jdbc_password == "From-File-1"
    monkeypatch.delenv("ICEBERG_DORIS_CATALOG_PASSWORD_FILE")

    monkeypatch.setenv("PGPASSWORD", "From-Env-1")
    assert CatalogSettings.resolve(home=tmp_path, catalog_uri=uri).jdbc_password == "From-Env-1"
    # Precedence: the URI's own password, then the file, then PGPASSWORD.
    assert CatalogSettings.resolve(home=tmp_path, catalog_uri=uri, catalog_password_file=secret_file).jdbc_password == "From-File-1"
    assert CatalogSettings.resolve(home=tmp_path, catalog_uri="postgresql://lake:In-Uri-1@db/meta").jdbc_password == "In-Uri-1"
    # The embedded SQLite catalog has no password to take.
    assert CatalogSettings.resolve(home=tmp_path).jdbc_password is None

    monkeypatch.delenv("PGPASSWORD")
    assert CatalogSettings.resolve(home=tmp_path, catalog_uri=uri).jdbc_password is None  # drivers read ~/.pgpass


def test_password_file_problems_are_clear(tmp_path):
    uri = "postgresql://lake@db:5432/meta"
    with pytest.raises(ConfigurationError, match=r"^Cannot read the catalog password file '.*/missing': No such file"):
        CatalogSettings.resolve(home=tmp_path, catalog_uri=uri, catalog_password_file=tmp_path / "missing")
    empty = tmp_path / "empty"
    empty.write_text("\n")
    with pytest.raises(ConfigurationError, match=r"^The catalog password file '.*/empty' is empty"):
        CatalogSettings.resolve(home=tmp_path, catalog_uri=uri, catalog_password_file=empty)


def test_secret_catalog_settings_are_kept_from_the_launch():
    conf = {
        "spark.sql.catalog.iceberg.uri": "jdbc:postgresql://db/meta",
        "spark.sql.catalog.iceberg.jdbc.user": "lake",
        "spark.sql.catalog.iceberg.jdbc.password": "pw",
        "spark.sql.catalog.iceberg.s3.secret-access-key": "key",
        "spark.sql.catalog.rest.token": "t",
        "spark.sql.catalog.rest.credential": "c",
        "spark.sql.shuffle.partitions": "4",
    }
    public, secret = split_secret_settings(conf)
    assert set(secret) == {
        "spark.sql.catalog.iceberg.jdbc.password",
        "spark.sql.catalog.iceberg.s3.secret-access-key",
        "spark.sql.catalog.rest.token",
        "spark.sql.catalog.rest.credential",
    }
    assert set(public) == set(conf) - set(secret)
    assert not is_secret_setting("spark.hadoop.fs.s3a.secret.key")  # not a catalog setting: Spark reads it at launch


def test_cli_warns_about_a_password_in_catalog_uri_and_masks_its_errors(capsys, tmp_path):
    code = main(["--home", str(tmp_path), "--catalog-uri", "postgresqll://lake:Cli-Secret-1@db/meta", "-e", "SELECT 1"])
    err = capsys.readouterr().err
    assert code == 1
    assert "WARNING: --catalog-uri postgresqll://lake:***@db/meta carries a password, which every local user" in err
    assert "ERROR: Unsupported catalog URI 'postgresqll://lake:***@db/meta'" in err
    assert "Cli-Secret-1" not in err


def test_cli_warns_about_secret_conf_on_its_command_line(capsys, tmp_path):
    code = main(["--home", str(tmp_path), "--catalog-uri", "mysql://db/meta",
                 "--conf", "spark.sql.catalog.iceberg.s3.secret-access-key=Cli-Secret-2", "-e", "SELECT 1"])
    err = capsys.readouterr().err
    assert code == 1
    assert "WARNING: --conf spark.sql.catalog.iceberg.s3.secret-access-key=... is a secret on the command line" in err
    assert "Cli-Secret-2" not in err


def test_cli_takes_the_password_from_a_file(capsys, tmp_path):
    secret_file = tmp_path / "pw"
    secret_file.write_text("Cli-Secret-3")
    os.chmod(secret_file, 0o600)
    # A URI without a database fails before Spark starts: enough to see the file was read and masked.
    code = main(["--home", str(tmp_path), "--catalog-uri", "postgresql://lake@db", "--catalog-password-file",
                 str(secret_file), "-e", "SELECT 1"])
    err = capsys.readouterr().err
    assert code == 1
    assert "WARNING" not in err
    assert err.startswith("ERROR: PostgreSQL catalog URI 'postgresql://lake@db' needs a host and a database")
