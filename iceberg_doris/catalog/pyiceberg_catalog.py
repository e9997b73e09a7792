"""The same catalog through pyiceberg: the Spark-free read path.

pyiceberg 0.12 reads format-v3 tables (deletion vectors applied) but cannot commit to them, so
iceberg-doris writes through Spark and reads here.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from iceberg_doris.catalog.settings import CatalogSettings

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
    exactly the tables Spark sees.

    Example:
        >>> import iceberg_doris
        >>> iceberg_doris.catalog().load_table("db.orders").scan().to_arrow()   # doctest: +SKIP
    """
    from pyiceberg.catalog.sql import SqlCatalog

    settings = CatalogSettings.resolve(
        home=home, catalog_uri=catalog_uri, warehouse=warehouse, catalog_password_file=catalog_password_file
    )
    return SqlCatalog(settings.name, **settings.pyiceberg_properties())
