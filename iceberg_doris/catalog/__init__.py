"""The catalog: where tables live, and pyiceberg's Spark-free view of them (the public catalog API).

- :class:`CatalogSettings`: how home, catalog URI and warehouse are resolved (both the Spark
  session and :func:`catalog` use them).
- :func:`catalog`: pyiceberg's SqlCatalog on the same database (the Spark-free read path).

This package is itself callable: ``iceberg_doris.catalog(...)`` is :func:`catalog`, and
``import iceberg_doris.catalog.settings`` still reaches the package's modules (a function of the
same name would shadow them).

The Spark session on the same catalog (:func:`iceberg_doris.session`) and everything that builds
and patches it are in :mod:`iceberg_doris.spark_session` (its jars: :mod:`iceberg_doris.spark_session.runtime_jars`).
"""

import inspect
import sys
import types
from typing import TYPE_CHECKING, Any

from iceberg_doris.catalog.pyiceberg_catalog import catalog
from iceberg_doris.catalog.settings import CatalogSettings

if TYPE_CHECKING:
    from pyiceberg.catalog.sql import SqlCatalog

__all__ = ["CatalogSettings", "catalog"]


class _CallablePackage(types.ModuleType):
    """The package's class: calling it calls :func:`catalog` (``iceberg_doris.catalog(home=...)``)."""

    def __call__(self, **arguments: Any) -> "SqlCatalog":
        return catalog(**arguments)


sys.modules[__name__].__class__ = _CallablePackage
__signature__ = inspect.signature(catalog)  # what help() and editors show for iceberg_doris.catalog(...)
