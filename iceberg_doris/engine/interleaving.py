"""Named points of the commit path where a test injects what another writer would do.

Concurrency tests must force an interleaving, not hope for one: a test registers a callback at a
point (with :func:`inject`) and the commit path calls it there, with the table's name, e.g. to
commit a competing load between a keyed load's lookup and its commit. Nothing registers a
callback outside tests; then reaching a point costs one dictionary lookup.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from iceberg_doris.engine.table_names import TableName

LOOKED_UP = "looked-up"  # a keyed load looked up its keys (optimistically) and is about to take the lock
LOCK_BUSY = "lock-busy"  # an operation found its table's commit lock taken and is about to wait for it
BEFORE_COMMIT = "before-commit"  # under the lock, right before each attempt's catalog swap
MAPPINGS_LISTED = "mappings-listed"  # a compaction listed the table's mapping folders to remove the stale ones
IDS_RESERVED = "ids-reserved"  # a load reserved its block of AUTO_INCREMENT values and has not written yet

Hook = Callable[[TableName], None]
_hooks: dict[str, list[Hook]] = {}


def reached(point: str, name: TableName) -> None:
    """Runs the callbacks registered at ``point`` (none outside tests)."""
    for hook in tuple(_hooks.get(point, ())):
        hook(name)


@contextmanager
def inject(point: str, hook: Hook) -> Iterator[None]:
    """Calls ``hook(table_name)`` each time the commit path reaches ``point``, within the block."""
    _hooks.setdefault(point, []).append(hook)
    try:
        yield
    finally:
        _hooks[point].remove(hook)
