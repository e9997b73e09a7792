"""The same catalog through pyiceberg: the Spark-free read path.

pyiceberg 0.12 reads format-v3 tables (deletion vectors applied) but cannot commit to them, so
iceberg-doris writes through Spark and reads here.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from iceberg_doris.lake.settings import CatalogSettings, session_settings

if TYPE_CHECKING:
    from pyiceberg.catalog.sql import SqlCatalog


def catalog(
    *,
    home: str | os.PathLike[str] | None = None,
    catalog_uri: str | None = None,
    warehouse: str | os.PathLike[str] | None = None,
    catalog_password_file: str | os.PathLike[str] | None = None,
) -> "SqlCatalog":
    """Returns pyiceberg's ``SqlCatalog`` on the catalog :func:`iceberg_doris.session` uses.

    Arguments and defaults are those of :func:`iceberg_doris.session`, so a pyiceberg script sees
    exactly the tables Spark sees. Without arguments it follows the session: once
    :func:`iceberg_doris.session` (or :func:`iceberg_doris.install` with its settings) has set one
    up in this process, it opens that session's catalog, whatever the environment says (after
    ``session(home=X)``, X's catalog); before any, the environment and defaults decide. Any
    argument given means: resolve these settings, not the session's.

    Example:
        >>> import iceberg_doris
        >>> iceberg_doris.catalog().load_table("db.orders").scan().to_arrow()   # doctest: +SKIP
    """
    from pyiceberg.catalog.sql import SqlCatalog

    given = (home, catalog_uri, warehouse, catalog_password_file)
    settings = session_settings() if all(value is None for value in given) else None
    if settings is None:
        settings = CatalogSettings.resolve(
            home=home, catalog_uri=catalog_uri, warehouse=warehouse, catalog_password_file=catalog_password_file
        )
    return SqlCatalog(settings.name, **settings.pyiceberg_properties())
