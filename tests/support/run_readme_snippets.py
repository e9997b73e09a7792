"""Runs the snippets of Markdown files in order, as a reader would paste them, and reports each as JSON.

    python -m tests.support.run_readme_snippets REPORT.json README.md [MORE.md ...] [--queries QUERIES.json] [--demo]

The files run one after the other in one process and one namespace (``docs/*.md`` pages each
start their own session with ``iceberg_doris.session()``, which returns the running one).

Run it in a process of its own, in the working folder the snippets' relative paths are read from,
with ``ICEBERG_DORIS_HOME`` set to a fresh folder: the first python snippet's
``iceberg_doris.session()`` starts the session there, and every later ``session()`` call and every
``iceberg-doris`` line (run in this process through ``iceberg_doris.cli.main``, so it finds the same
session) uses it. Python snippets share one namespace; SQL snippets run statement by statement
through that namespace's ``spark``; text blocks marked ``<!-- file: path -->`` are written to
``path``. ``--queries`` names a JSON object ``{name: SQL}`` run after the snippets, their rows
reported; ``--demo`` then runs ``examples/pipeline.py`` (the job behind ``make demo``) and reports
its output.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import shlex
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from tests.support.readme_blocks import Block, parse_blocks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("report")
    parser.add_argument("markdown", nargs="+")
    parser.add_argument("--queries")
    parser.add_argument("--demo", action="store_true")
    args = parser.parse_args(argv)

    namespace: dict[str, Any] = {"__name__": "__readme__"}
    results = []
    blocks = [block for name in args.markdown for block in parse_blocks(Path(name).read_text(), _source(name))]
    for block in blocks:
        started = time.monotonic()
        results.append({**_run_block(block, namespace), "seconds": round(time.monotonic() - started, 2)})
        _write(args.report, results, {}, None)
    queries = json.loads(Path(args.queries).read_text()) if args.queries else {}
    rows = {name: _rows(namespace["spark"], sql) for name, sql in queries.items()} if "spark" in namespace else {}
    started = time.monotonic()
    demo = {**_run_demo(), "seconds": round(time.monotonic() - started, 2)} if args.demo else None
    _write(args.report, results, rows, demo)
    return 0


def _run_block(block: Block, namespace: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = {"source": block.source, "line": block.line, "language": block.language or "text"}
    if block.file_name:
        target = Path(block.file_name)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(block.text)
        return {**result, "status": "file", "file": block.file_name}
    if not block.is_code:
        return {**result, "status": "output"}
    if block.not_run_reason:
        return {**result, "status": "not-run", "reason": block.not_run_reason}
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            statements = _RUNNERS[block.language](block, namespace)
    except BaseException as error:  # noqa: BLE001 - every failure is reported, SystemExit too
        return {**result, "status": "failed", "error": _describe(error), "output": out.getvalue()[-6000:]}
    return {**result, "status": "ok", "output": out.getvalue()[-6000:], "statements": statements}


def _run_python(block: Block, namespace: dict[str, Any]) -> list[dict[str, Any]]:
    exec(compile(block.text, block.where, "exec"), namespace)  # noqa: S102 - the README's own snippet
    return []


def _run_sql(block: Block, namespace: dict[str, Any]) -> list[dict[str, Any]]:
    from iceberg_doris.cli.sql_script import split_statements

    spark = namespace.get("spark")
    if spark is None:
        raise RuntimeError("no python snippet before this SQL block made `spark`")
    done = []
    for statement in split_statements(block.text):
        try:
            done.append({"sql": statement, "rows": _rows(spark, statement)})
        except Exception as error:
            raise RuntimeError(f"statement failed: {statement}\n{_describe(error)}") from None
    return done


def _run_bash(block: Block, namespace: dict[str, Any]) -> list[dict[str, Any]]:
    from iceberg_doris.cli import main as cli

    done = []
    for line in block.text.splitlines():
        words = shlex.split(line, comments=True)
        if not words:
            continue
        if words[0] != "iceberg-doris":
            raise RuntimeError(f"only iceberg-doris lines can run here, not {line!r}: mark the block not-run")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                code = cli(words[1:])
            except SystemExit as exit_:  # --version and --help exit through argparse
                code = exit_.code or 0
        print(out.getvalue(), end="")
        if code != 0:
            raise RuntimeError(f"{line!r} exited {code}")
        done.append({"command": line, "stdout": out.getvalue()})
    return done


_RUNNERS = {"python": _run_python, "sql": _run_sql, "bash": _run_bash}


def _rows(spark: Any, sql: str) -> list[list[Any]]:
    frame = spark.sql(sql)
    return [[_plain(value) for value in row] for row in frame.collect()] if frame.columns else []


def _plain(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def _run_demo() -> dict[str, Any]:
    import runpy

    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(str(Path(__file__).resolve().parents[2] / "examples" / "pipeline.py"), run_name="__main__")
    except BaseException as error:  # noqa: BLE001
        return {"status": "failed", "error": _describe(error), "output": out.getvalue()}
    return {"status": "ok", "output": out.getvalue()}


def _source(name: str) -> str:
    """The file as messages name it: relative to the repository when it is inside it."""
    path = Path(name).resolve()
    repository = Path(__file__).resolve().parents[2]
    return str(path.relative_to(repository)) if path.is_relative_to(repository) else name


def _describe(error: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(error), error)).strip()[-4000:]


def _write(path: str, results: list[dict[str, Any]], rows: dict[str, Any], demo: dict[str, Any] | None) -> None:
    Path(path).write_text(json.dumps({"blocks": results, "queries": rows, "demo": demo}, indent=1, default=str))


if __name__ == "__main__":
    sys.exit(main())
