"""Where tables live: the catalog a Spark session and pyiceberg share.

- :class:`CatalogSettings` (:mod:`.settings`): how home, catalog URI, warehouse and password file
  are resolved (both the Spark session and :func:`iceberg_doris.catalog` use them).
- :func:`~.pyiceberg_catalog.catalog`: pyiceberg's SqlCatalog on the same database (the Spark-free
  read path), public as :func:`iceberg_doris.catalog`.
- :mod:`.masking`: passwords masked in every text (messages, logs, reprs).

The package is not called ``catalog``: ``iceberg_doris.catalog`` is the function, and one name is
one thing. The Spark session on the same catalog (:func:`iceberg_doris.session`) is in
:mod:`iceberg_doris.entry`, the settings that declare it to Spark in :mod:`iceberg_doris.spark_session`.
"""

from iceberg_doris.lake.pyiceberg_catalog import catalog
from iceberg_doris.lake.settings import CatalogSettings

__all__ = ["CatalogSettings", "catalog"]
