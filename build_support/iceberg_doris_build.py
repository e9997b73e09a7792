"""The build backend: setuptools, plus the packages the wheel's jars are built from.

Only a wheel build needs PySpark (the bridge compiles against Spark's jars, and Jackson comes
from them) and the Iceberg runtime; sdists and editable installs do not pay for installing them.
"""

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403 - the whole PEP 517 interface

JAR_BUILD_REQUIRES = ["pyspark>=3.5,<3.6", "snowpark-connect-deps-iceberg==1.0.3"]


def get_requires_for_build_wheel(config_settings=None):
    return _setuptools.get_requires_for_build_wheel(config_settings) + JAR_BUILD_REQUIRES
