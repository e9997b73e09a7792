"""Running a Spark action on a thread of its own while the calling thread goes on.

A load's driver spends most of its time between Spark jobs (planning, py4j round trips, catalog
reads); a job that needs nothing from the work after it (the new rows of a full-row upsert) can
run meanwhile. The thread inherits the caller's Spark local properties (job group, scheduler
pool), as a JVM thread started by the caller would, so its jobs are the caller's jobs, and runs
with the caller's session active (Iceberg's source resolves catalogs through the active session,
which a fresh py4j thread would otherwise leave at the default one).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

T = TypeVar("T")


class Background(Generic[T]):
    """``action()`` running on its own thread; :meth:`result` waits for it."""

    def __init__(self, spark: "SparkSession", action: Callable[[], T], name: str):
        from pyspark import InheritableThread

        self._spark = spark

        self._value: T | None = None
        self._error: BaseException | None = None
        self._thread: threading.Thread = InheritableThread(target=self._run, args=(action,), name=name, daemon=True)
        self._thread.start()

    def _run(self, action: Callable[[], T]) -> None:
        try:
            jvm = self._spark.sparkContext._jvm
            jvm.org.apache.spark.sql.SparkSession.setActiveSession(self._spark._jsparkSession)
            self._value = action()
        except BaseException as error:  # handed to the caller by result()
            self._error = error

    def result(self) -> T:
        """The action's value, or its exception raised here."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]

    @property
    def succeeded(self) -> bool:
        """Whether the action finished without an exception (False while it runs)."""
        return not self._thread.is_alive() and self._error is None

    def wait(self) -> None:
        """Waits for the action without raising its exception (a caller that is failing already)."""
        self._thread.join()
