"""The build backend: setuptools, with the wheel's bridge jars built by setup.py's hook.

The jars are built with Maven from ``jvm/`` (one per supported Spark line), which fetches Spark
and Iceberg from Maven Central itself: the build environment needs no PyPI package beyond
setuptools. The build machine needs a JDK 17 and Maven; a machine installing the wheel needs neither.
"""

from setuptools.build_meta import *  # noqa: F401,F403 - the whole PEP 517 interface
