"""Session plumbing: what configures or patches the Spark session and its JVM, under the engine.

Outside :mod:`iceberg_doris.engine` (Iceberg's Java API), this package and the entry points
(:mod:`iceberg_doris.entry`) are the only code that talks to the JVM
(``tests/test_architecture.py``). None of it touches an Iceberg table, and none of it imports
anything above it: the entry points (``session()``, ``install()``, the ``CALL`` bridge, the
callback server) are in :mod:`iceberg_doris.entry`.

Starting the session:

- :mod:`.builder`: :func:`iceberg_doris.spark_conf` (the settings a session gets, the master,
  the driver's memory, loopback listeners).
- :mod:`.spark_lines`: the supported Spark lines, their class names and Maven coordinates.
- :mod:`.runtime_jars`, :mod:`.prefetch`, :mod:`.running_jvm`: the jars (Iceberg runtime, catalog
  drivers, our bridge), fetched ahead (``python -m iceberg_doris.spark_session.prefetch``) and put
  on a driver JVM that is already running.
- :mod:`.s3_conf`: what an ``s3://`` warehouse adds (S3FileIO, ``s3a``, their jars).
- :mod:`.local_cluster`: the embedded ``local-cluster`` master; :mod:`.spark_properties`: the
  settings as a ``spark-defaults.conf`` text.

Configuring and patching it (what :func:`iceberg_doris.install` applies):

- :mod:`.procedure_calls`, :mod:`.job_groups`: what each procedure call needs of the driver (the
  active session on its thread, its Spark job group, Java failures in words).
- :mod:`.defaults`, :mod:`.sizing` (applying the pure rule of :mod:`.shuffle_sizing`): runtime
  settings a session gets unless someone set them.
- :mod:`.catalog_conf`: the Spark settings that declare the catalog (:mod:`iceberg_doris.lake`);
  :mod:`.secrets`: secret settings (its password) kept off command lines and out of py4j text.
- :mod:`.py4j_sockets`, :mod:`.jvm_lookups`, :mod:`.local_file_system`: py4j without Nagle's delay,
  Java names looked up once, local files written without a ``chmod`` process each.
- :mod:`.java_errors`: failures that cross py4j, translated into :mod:`iceberg_doris.errors`.

This ``__init__`` imports nothing, so a module here costs only what it imports itself.
"""
