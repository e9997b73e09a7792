"""Builds the bridge jars the wheel ships (one per supported Spark line) while the wheel is built.

Everything else about the package is in pyproject.toml. The build machine needs a JDK 17 and
Maven (scripts/setup.sh installs both); a machine that installs the wheel needs neither.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


def _load_runtime_jars() -> types.ModuleType:
    """runtime_jars.py on its own: importing the package would import pyiceberg, which the
    build environment does not have. Its package imports are errors and spark_lines."""
    package = types.ModuleType("iceberg_doris")
    package.__path__ = []  # a stand-in parent, so only the two modules below are loaded
    names = (
        "iceberg_doris",
        "iceberg_doris.errors",
        "iceberg_doris.spark_session",
        "iceberg_doris.spark_session.spark_lines",
        "iceberg_doris.spark_session.runtime_jars",
    )
    saved = {name: sys.modules.get(name) for name in names}
    session_package = types.ModuleType("iceberg_doris.spark_session")
    session_package.__path__ = []
    modules = {"iceberg_doris": package, "iceberg_doris.spark_session": session_package}
    try:
        sys.modules["iceberg_doris"] = package
        sys.modules["iceberg_doris.spark_session"] = session_package
        for name, path in (
            ("iceberg_doris.errors", ROOT / "iceberg_doris" / "errors.py"),
            ("iceberg_doris.spark_session.spark_lines", ROOT / "iceberg_doris" / "spark_session" / "spark_lines.py"),
            ("iceberg_doris.spark_session.runtime_jars", ROOT / "iceberg_doris" / "spark_session" / "runtime_jars.py"),
        ):
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module  # dataclasses look their module up while the class is made
            spec.loader.exec_module(module)
            modules[name] = module
    finally:
        for name, value in saved.items():
            if value is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = value
    return modules["iceberg_doris.spark_session.runtime_jars"]


class BuildPyWithJars(build_py):
    """build_py, then the jars into the built package's _jars/ (not for editable installs:
    a source checkout builds them on first use)."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        runtime_jars = _load_runtime_jars()
        for jar in runtime_jars.build_distribution_jars(Path(self.build_lib) / "iceberg_doris" / "_jars"):
            print(f"iceberg-doris: built {jar.name}")


setup(cmdclass={"build_py": BuildPyWithJars})
