"""Session settings changed for one test and put back after it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any


@contextmanager
def session_settings(spark: Any, settings: Mapping[str, str]) -> Iterator[None]:
    """Sets ``settings`` on the session; restores each one's value (or unsets it) afterwards."""
    before = {key: spark.conf.get(key, None) for key in settings}
    for key, value in settings.items():
        spark.conf.set(key, value)
    try:
        yield
    finally:
        for key, value in before.items():
            if value is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)
