"""The one namespace each by-procedure module makes its tables in."""

from __future__ import annotations

import uuid
from typing import Any

import pytest


@pytest.fixture(scope="module")
def ns(spark: Any) -> str:
    name = f"bp_{uuid.uuid4().hex[:8]}"
    spark.sql(f"CREATE NAMESPACE {name}")
    return name
