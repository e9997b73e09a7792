"""The entry points: where a user, Spark SQL or a stream reaches iceberg-doris.

- :mod:`.session`: :func:`iceberg_doris.session`, a SparkSession wired for iceberg-doris.
- :mod:`.bridge`: :func:`iceberg_doris.install` and the Python end of ``CALL doris.*`` and of
  ``format("doris")`` (a py4j callback the JVM calls), handing each call to the procedures or the
  streaming sink.
- :mod:`.callback_server`: the py4j callback server those calls arrive through, loopback only and
  for the gateway's owner.

This package sits on top: it imports the procedures, the streaming sink and the session plumbing
(:mod:`iceberg_doris.spark_session`), and nothing below imports it.
"""
