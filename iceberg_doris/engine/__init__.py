"""The engine corner: every use of Spark's JVM and Iceberg's Java API lives here.

Domain modules (``ddl``, ``partitioning``, ``table_model``) stay pure Python; procedures combine
them with these helpers.
"""
