"""The runtime settings iceberg-doris gives a session, and a value the user set left alone."""

from __future__ import annotations

import pytest

from iceberg_doris.spark_session.defaults import ANSI, CACHE_COMPRESSION, apply_session_defaults

pytestmark = pytest.mark.spark


def test_the_session_caches_uncompressed_and_keeps_a_value_the_user_sets(spark):
    # Spark's own default is true: the session built by iceberg_doris.session() says false.
    assert spark.conf.get(CACHE_COMPRESSION) == "false"
    assert apply_session_defaults(spark) == {}  # already set: nothing to do
    try:
        spark.sql(f"SET {CACHE_COMPRESSION}=true")
        assert apply_session_defaults(spark) == {}
        assert spark.conf.get(CACHE_COMPRESSION) == "true"
    finally:
        spark.conf.set(CACHE_COMPRESSION, "false")


def test_an_unset_value_gets_the_default(spark):
    try:
        spark.conf.unset(CACHE_COMPRESSION)
        assert spark.conf.get(CACHE_COMPRESSION) == "true"  # Spark's default once unset
        assert apply_session_defaults(spark) == {CACHE_COMPRESSION: "false"}
        assert spark.conf.get(CACHE_COMPRESSION) == "false"
    finally:
        spark.conf.set(CACHE_COMPRESSION, "false")


def test_the_session_casts_as_doris_loads_need_on_every_spark_line(spark):
    """Spark 4 turned ANSI SQL on by default; a load's unconvertible value must become NULL (then
    filtered), as on Spark 3.5, not fail the query."""
    assert spark.conf.get(ANSI) == "false"
    assert spark.sql("SELECT CAST('x' AS BIGINT) AS v").collect()[0].v is None
