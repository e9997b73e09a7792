"""Where the catalog and the warehouse live: one resolution shared by Spark and pyiceberg.

The embedded default is a SQLite catalog file and a local warehouse folder under one home
directory. A PostgreSQL URL and any warehouse URI Iceberg can write select other parts, so the
same code runs against a shared catalog and object storage.

Precedence for each setting: explicit argument, then environment variable, then default.

Secrets: a PostgreSQL password can come from the URI, from a password file (argument or
``$ICEBERG_DORIS_CATALOG_PASSWORD_FILE``) or from ``$PGPASSWORD`` (libpq's own variable, which
pyiceberg's driver reads anyway), in that order; without any, both drivers read ``~/.pgpass``.
The password is kept out of the Spark settings that declare the catalog
(:func:`iceberg_doris.spark_session.catalog_conf.spark_catalog_conf`: PySpark puts launch settings on a
command line) and out of ``repr`` and messages (:mod:`iceberg_doris.lake.masking`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

from iceberg_doris.errors import ConfigurationError
from iceberg_doris.lake.masking import mask_secrets, remember_secret
from iceberg_doris.lake.object_storage import S3Location, is_s3

HOME_ENV = "ICEBERG_DORIS_HOME"
CATALOG_URI_ENV = "ICEBERG_DORIS_CATALOG_URI"
WAREHOUSE_ENV = "ICEBERG_DORIS_WAREHOUSE"
CATALOG_NAME_ENV = "ICEBERG_DORIS_CATALOG_NAME"
CATALOG_PASSWORD_FILE_ENV = "ICEBERG_DORIS_CATALOG_PASSWORD_FILE"
PGPASSWORD_ENV = "PGPASSWORD"

DEFAULT_HOME = Path("~/.iceberg-doris")
DEFAULT_CATALOG_NAME = "iceberg"
CATALOG_FILE_NAME = "catalog.db"
WAREHOUSE_DIR_NAME = "warehouse"


@dataclass(frozen=True, repr=False)
class CatalogSettings:
    """A resolved catalog location, in the forms each engine needs.

    ``jdbc_password`` and ``sqlalchemy_uri`` hold the password in clear for the drivers; ``repr``
    masks them.
    """

    name: str
    kind: str  # "sqlite" or "postgresql"
    jdbc_uri: str
    jdbc_user: str | None
    jdbc_password: str | None
    sqlalchemy_uri: str
    warehouse: str
    home: Path | None
    # Endpoint and region of an s3:// warehouse (lake/object_storage.py); None for other warehouses.
    s3: S3Location | None = None

    @classmethod
    def resolve(
        cls,
        *,
        home: str | os.PathLike[str] | None = None,
        catalog_uri: str | None = None,
        warehouse: str | os.PathLike[str] | None = None,
        catalog_password_file: str | os.PathLike[str] | None = None,
    ) -> "CatalogSettings":
        """Resolves arguments, environment and defaults into one catalog location.

        ``catalog_password_file`` (default ``$ICEBERG_DORIS_CATALOG_PASSWORD_FILE``) holds the
        PostgreSQL password when the URI carries none, so it never has to be on a command line.
        """
        home_path = _resolve_home(home)
        name = os.environ.get(CATALOG_NAME_ENV, DEFAULT_CATALOG_NAME)
        uri = catalog_uri or os.environ.get(CATALOG_URI_ENV)
        warehouse_uri = _warehouse_uri(warehouse or os.environ.get(WAREHOUSE_ENV), home_path)
        if uri is None:
            home_path.mkdir(parents=True, exist_ok=True)
            uri = f"sqlite:///{home_path / CATALOG_FILE_NAME}"
        kind, jdbc_uri, user, password, sqlalchemy_uri = _parse_catalog_uri(uri)
        if kind == "postgresql" and password is None:
            password = _password_from_file(catalog_password_file or os.environ.get(CATALOG_PASSWORD_FILE_ENV))
            if password is None:
                password = os.environ.get(PGPASSWORD_ENV) or None
            if password is not None:
                sqlalchemy_uri = _with_password(sqlalchemy_uri, user, password)
        remember_secret(password)
        if kind == "sqlite":
            Path(unquote(jdbc_uri.removeprefix("jdbc:sqlite:"))).parent.mkdir(parents=True, exist_ok=True)
        s3 = S3Location.from_environment() if is_s3(warehouse_uri) else None
        return cls(name, kind, jdbc_uri, user, password, sqlalchemy_uri, warehouse_uri, home_path, s3)

    @property
    def display_uri(self) -> str:
        """The catalog's JDBC URI with any secret masked, for messages."""
        return mask_secrets(self.jdbc_uri)

    def __repr__(self) -> str:
        return (
            f"CatalogSettings(name={self.name!r}, kind={self.kind!r}, jdbc_uri={self.display_uri!r}, "
            f"jdbc_user={self.jdbc_user!r}, jdbc_password={'***' if self.jdbc_password is not None else None}, "
            f"sqlalchemy_uri={mask_secrets(self.sqlalchemy_uri)!r}, warehouse={mask_secrets(self.warehouse)!r}, "
            f"home={self.home!r}, s3={self.s3!r})"
        )

    def pyiceberg_properties(self) -> dict[str, str]:
        """Properties for pyiceberg's SqlCatalog on the same database and warehouse."""
        properties = {"uri": self.sqlalchemy_uri, "warehouse": self.warehouse}
        if self.s3 is not None:
            properties.update(self.s3.pyiceberg_properties())
        return properties


# The settings of the Spark session iceberg_doris.session() (or install(spark, settings)) set up last
# in this process: what catalog() with no arguments opens, so both sides see the same tables.
_session_settings: CatalogSettings | None = None


def follow_session(settings: CatalogSettings) -> None:
    """Records ``settings`` as the running session's (:func:`iceberg_doris.catalog` follows them)."""
    global _session_settings
    _session_settings = settings


def session_settings() -> CatalogSettings | None:
    """The settings of the session started last in this process, or None before any."""
    return _session_settings


def _resolve_home(home: str | os.PathLike[str] | None) -> Path:
    raw = home if home is not None else os.environ.get(HOME_ENV)
    path = Path(raw) if raw else DEFAULT_HOME
    return path.expanduser().resolve()


def _warehouse_uri(warehouse: str | os.PathLike[str] | None, home: Path) -> str:
    if warehouse is None:
        path = home / WAREHOUSE_DIR_NAME
        path.mkdir(parents=True, exist_ok=True)
        return path.as_uri()
    text = os.fspath(warehouse)
    if "://" in text or text.startswith("file:"):
        return text.rstrip("/")
    path = Path(text).expanduser().resolve()
    path.mkdir(parents=True, exist_ok=True)
    return path.as_uri()


def _password_from_file(path: str | os.PathLike[str] | None) -> str | None:
    """The first line of ``path`` (a trailing newline is not part of the password)."""
    if path is None or os.fspath(path) == "":
        return None
    try:
        text = Path(path).expanduser().read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigurationError(
            f"Cannot read the catalog password file {os.fspath(path)!r}: {error.strerror or error}. "
            f"Point --catalog-password-file / {CATALOG_PASSWORD_FILE_ENV} at a readable file holding the password."
        ) from None
    password = text.split("\n", 1)[0].removesuffix("\r")
    if not password:
        raise ConfigurationError(
            f"The catalog password file {os.fspath(path)!r} is empty: write the password on its first line."
        )
    return password


def _with_password(sqlalchemy_uri: str, user: str | None, password: str) -> str:
    parts = urlsplit(sqlalchemy_uri)
    hostport = parts.netloc.rpartition("@")[2]
    return _sqlalchemy_postgres(hostport, parts.path, user, password) + (f"?{parts.query}" if parts.query else "")


def _parse_catalog_uri(uri: str) -> tuple[str, str, str | None, str | None, str]:
    """Returns (kind, JDBC URL, user, password, SQLAlchemy URL) for a SQLite or PostgreSQL URI."""
    try:
        return _parse_valid_catalog_uri(uri)
    except ValueError as error:  # urllib's own (bad port, bad IPv6 host); its text holds no password
        raise ConfigurationError(
            f"Catalog URI {mask_secrets(uri)!r} is malformed ({error}): "
            "write postgresql://user@host:5432/database or sqlite:////path/catalog.db"
        ) from None


def _parse_valid_catalog_uri(uri: str) -> tuple[str, str, str | None, str | None, str]:
    if uri.startswith("jdbc:sqlite:"):
        path = uri.removeprefix("jdbc:sqlite:")
        return "sqlite", uri, None, None, f"sqlite:///{path}"
    if uri.startswith("sqlite:"):
        parts = urlsplit(uri)
        if not parts.path or parts.path == "/":
            raise ConfigurationError(
                f"SQLite catalog URI {mask_secrets(uri)!r} names no file: write sqlite:////absolute/path/catalog.db"
            )
        path = parts.path.removeprefix("/") if parts.path.startswith("//") else parts.path
        path = str(Path(path).expanduser().resolve())
        return "sqlite", f"jdbc:sqlite:{path}", None, None, f"sqlite:///{path}"
    if uri.startswith("jdbc:postgresql:"):
        parts = urlsplit(uri.removeprefix("jdbc:"))
        query = dict(parse_qsl(parts.query))
        user = query.pop("user", None)
        password = query.pop("password", None)
        jdbc = f"jdbc:postgresql://{parts.netloc}{parts.path}" + (f"?{urlencode(query)}" if query else "")
        return "postgresql", jdbc, user, password, _sqlalchemy_postgres(parts.netloc, parts.path, user, password)
    if uri.startswith(("postgresql:", "postgres:", "postgresql+psycopg2:")):
        parts = urlsplit(uri)
        if not parts.hostname or not parts.path.strip("/"):
            raise ConfigurationError(
                f"PostgreSQL catalog URI {mask_secrets(uri)!r} needs a host and a database: "
                "postgresql://user:password@host:5432/database"
            )
        user = unquote(parts.username) if parts.username else None
        password = unquote(parts.password) if parts.password else None
        hostport = parts.hostname + (f":{parts.port}" if parts.port else "")
        query = f"?{parts.query}" if parts.query else ""
        jdbc = f"jdbc:postgresql://{hostport}{parts.path}{query}"
        return "postgresql", jdbc, user, password, _sqlalchemy_postgres(hostport, parts.path, user, password)
    raise ConfigurationError(
        f"Unsupported catalog URI {mask_secrets(uri)!r}: use sqlite:////path/catalog.db (embedded) or "
        "postgresql://user:password@host:5432/database (shared); jdbc:sqlite: and "
        "jdbc:postgresql: URLs are accepted too."
    )


def _sqlalchemy_postgres(hostport: str, path: str, user: str | None, password: str | None) -> str:
    credentials = ""
    if user is not None:
        credentials = quote(user, safe="")
        if password is not None:
            credentials += ":" + quote(password, safe="")
        credentials += "@"
    return f"postgresql+psycopg2://{credentials}{hostport}{path}"
