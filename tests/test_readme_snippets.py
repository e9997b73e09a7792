"""Docs that run: every python, sql and bash block of README.md and of docs/*.md is executed, in order, on a fresh home.

The snippets run in a process of their own (``tests/support/run_readme_snippets.py``), as a reader
pastes them: the first one's ``iceberg_doris.session()`` starts Spark on a fresh
``ICEBERG_DORIS_HOME``, in an empty working folder, as a reader's: the snippets write every file
they load (a text block marked ``<!-- file: path -->`` in a page of ``docs/`` is such a file). A
code block the test cannot run carries ``<!-- not-run: <reason> -->`` on the line before it.
After the snippets the run reads the tables they built, and runs the job behind ``make demo``
to check the README's sample output. The pages of ``docs/`` run the same way, in name order, in one
process of their own on another fresh home and working folder (each page starts its session and
makes its own tables, so a page never depends on another).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.readme_blocks import Block, parse_blocks

REPOSITORY = Path(__file__).resolve().parents[1]
README = REPOSITORY / "README.md"
DOCS = sorted((REPOSITORY / "docs").glob("*.md"))

# What the tables hold once every snippet ran (row values as the README's snippets make them).
FINAL_QUERIES = {
    "orders": "SELECT dt, id, amount FROM sales.orders ORDER BY dt, id",
    "users": "SELECT id, email, last_seen FROM crm.users ORDER BY id",
    "partitions": "CALL doris.show_partitions('sales.orders')",
}


def _run_snippets(root: Path, files: list[Path], *extra: str, timeout: int) -> dict[str, Any]:
    work, home = root / "work", root / "home"
    work.mkdir()  # empty, as a reader's folder: the snippets write every file they load
    report = root / "report.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ICEBERG_DORIS_") or k == "ICEBERG_DORIS_JAR_CACHE"}
    env.update(ICEBERG_DORIS_HOME=str(home), PYTHONPATH=str(REPOSITORY))
    run = subprocess.run(
        [sys.executable, "-m", "tests.support.run_readme_snippets", str(report), *map(str, files), *extra],
        cwd=work, env=env, capture_output=True, text=True, timeout=timeout,
    )
    assert report.exists(), f"the snippet runner wrote no report (exit {run.returncode}):\n{run.stderr[-6000:]}"
    return json.loads(report.read_text()) | {"stderr": run.stderr}


@pytest.fixture(scope="module")
def readme_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("readme")
    queries = root / "queries.json"
    queries.write_text(json.dumps(FINAL_QUERIES))
    return _run_snippets(root, [README], "--queries", str(queries), "--demo", timeout=540)


@pytest.fixture(scope="module")
def docs_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _run_snippets(tmp_path_factory.mktemp("docs"), DOCS, timeout=1200)


def _docs_blocks() -> list[Block]:
    return [block for path in DOCS for block in parse_blocks(path.read_text(), f"docs/{path.name}")]


def _unrunnable_bash(blocks: list[Block]) -> list[str]:
    unrunnable = []
    for block in blocks:
        if not block.is_code or block.not_run_reason or block.language != "bash":
            continue
        for line in block.text.splitlines():
            words = shlex.split(line, comments=True)
            if words and words[0] != "iceberg-doris":
                unrunnable.append(f"{block.where}: {line.strip()}")
    return unrunnable


def _failures(run: dict[str, Any], blocks: list[Block]) -> list[str]:
    ran = run["blocks"]
    expected = [(b.source, b.line, b.language or "text") for b in blocks]
    assert [(b["source"], b["line"], b["language"]) for b in ran] == expected, "the run stopped before the last block"
    return [
        f"{b['source']}:{b['line']} ({b['language']}):\n{b['error']}\n--- output ---\n{b['output'][-1500:]}"
        for b in ran if b["status"] == "failed"
    ]


def _printed_promises(run: dict[str, Any], blocks: list[Block]) -> int:
    """A ``print(...)  # -> X`` line in a python snippet promises that the snippet prints X."""
    outputs = {(b["source"], b["line"]): b.get("output", "") for b in run["blocks"]}
    promises = 0
    for block in blocks:
        for line in block.text.splitlines():
            match = re.search(r"^\s*print\(.*#\s*->\s*(.+?)\s*$", line) if block.language == "python" else None
            if match:
                promises += 1
                output = outputs[(block.source, block.line)].splitlines()
                assert match.group(1) in output, (block.where, match.group(1), output)
    return promises


def test_every_code_block_runs_or_says_why_not():
    blocks = parse_blocks(README.read_text())
    unrunnable = _unrunnable_bash(blocks)
    assert not unrunnable, "bash lines the test cannot run; mark their block <!-- not-run: <reason> -->:\n" + "\n".join(unrunnable)
    run = [b for b in blocks if b.is_code and not b.not_run_reason]
    assert len(run) >= 11 and {b.language for b in run} == {"python", "sql", "bash"}
    # Pasted in order into a Python session, the blocks are all there is: no file to make by hand.
    assert [b.file_name for b in blocks if b.file_name] == []


def test_every_docs_code_block_runs_or_says_why_not():
    blocks = _docs_blocks()
    unrunnable = _unrunnable_bash(blocks)
    assert not unrunnable, "bash lines the test cannot run; mark their block <!-- not-run: <reason> -->:\n" + "\n".join(unrunnable)
    assert len(DOCS) >= 10
    pages_that_run = {b.source for b in blocks if b.is_code and not b.not_run_reason}
    assert len(pages_that_run) >= 8, pages_that_run


def test_docs_links_point_at_pages_that_exist():
    for path in [README, *DOCS]:
        for target in re.findall(r"\]\(((?:docs/)?[a-z_-]+\.md)(?:#[a-z0-9-]*)?\)", path.read_text()):
            folder = REPOSITORY if path == README else path.parent
            assert (folder / target).exists(), f"{path.name} links to {target}, which does not exist"


def test_procedures_reference_names_every_procedure():
    from iceberg_doris.procedures.render_python_api import own_procedures

    reference = (REPOSITORY / "docs" / "procedures.md").read_text()
    readme = README.read_text()
    for procedure in own_procedures():  # not the samples other tests register
        assert f"### `doris.{procedure.name}`" in reference, f"docs/procedures.md has no section for doris.{procedure.name}"
        assert f"`doris.{procedure.name}`" in readme, f"README.md does not list doris.{procedure.name}"


def test_not_run_markers_only_sit_on_code_blocks():
    with pytest.raises(ValueError, match="not-run marker belongs on a python, sql or bash block"):
        parse_blocks("<!-- not-run: why -->\n```text\nx\n```\n")
    with pytest.raises(ValueError, match="gives no reason"):
        parse_blocks("<!-- not-run: -->\n```bash\nmake\n```\n")
    with pytest.raises(ValueError, match="never closed"):
        parse_blocks("```python\nx = 1\n")


@pytest.mark.spark
def test_every_snippet_runs_in_order(readme_run):
    failed = _failures(readme_run, parse_blocks(README.read_text()))
    assert not failed, "README snippets that fail (later ones may fail because of the first):\n\n" + "\n\n".join(failed)
    assert sum(b["status"] == "ok" for b in readme_run["blocks"]) >= 11


@pytest.mark.spark
def test_printed_values_match_the_readme_comments(readme_run):
    assert _printed_promises(readme_run, parse_blocks(README.read_text())) >= 1


@pytest.mark.spark
def test_every_docs_snippet_runs_in_order(docs_run):
    failed = _failures(docs_run, _docs_blocks())
    assert not failed, "docs snippets that fail (later ones may fail because of the first):\n\n" + "\n\n".join(failed)


@pytest.mark.spark
def test_printed_values_match_the_docs_comments(docs_run):
    assert _printed_promises(docs_run, _docs_blocks()) >= 3


@pytest.mark.spark
def test_tables_hold_what_the_snippets_made(readme_run):
    queries = readme_run["queries"]
    # orders: the CSV's two rows of key (2024-01-15, 1) summed (AGGREGATE KEY, SUM), January and
    # February re-loaded into tp2024q1 and replaced in; May overwritten by insert_overwrite.
    assert queries["orders"] == [
        ["2024-01-15", 1, 150],
        ["2024-02-10", 2, 200],
        ["2024-05-02", 3, 320],
        ["2024-05-31", 10, 1000],
    ]
    # users: batch 41 inserted 1-4; batch 42 updated 2, deleted 3, inserted 5; the partial update
    # changed 1's email and kept its last_seen; DELETE FROM removed 4 (last seen 2018).
    assert queries["users"] == [
        [1, "ann@example.com", "2024-03-01"],
        [2, "bob@new.io", "2024-05-05"],
        [5, "eve@e.io", "2024-05-06"],
    ]
    names = [row[0] for row in queries["partitions"]]
    assert "tp2024q1" in names and "p202405" in names and "p202401" not in names and "feb_2024" not in names


@pytest.mark.spark
def test_command_line_snippets_print_the_tables(readme_run):
    commands = {s["command"]: s["stdout"] for b in readme_run["blocks"] for s in b.get("statements", []) if "command" in s}
    assert commands['iceberg-doris --version'].startswith("iceberg-doris ")
    assert "| load " in commands['iceberg-doris -e "CALL doris.help()"']
    assert commands['iceberg-doris --output csv -e "SELECT * FROM sales.orders ORDER BY dt, id"'].splitlines() == [
        "dt,id,amount", "2024-01-15,1,150", "2024-02-10,2,200", "2024-05-02,3,320", "2024-05-31,10,1000",
    ]


@pytest.mark.spark
def test_make_demo_prints_the_readme_sample(readme_run):
    demo = readme_run["demo"]
    assert demo["status"] == "ok", demo.get("error")
    sample = next(b for b in parse_blocks(README.read_text()) if not b.is_code and not b.file_name and "== swap ==" in b.text)
    lines = demo["output"].splitlines()
    position = 0
    for expected in sample.text.splitlines():
        pattern = re.compile(".*".join(re.escape(part) for part in expected.split("...")) + r"\s*$")
        while position < len(lines) and not pattern.match(lines[position]):
            position += 1
        assert position < len(lines), f"make demo's output has no line like {expected!r} (in order):\n{demo['output']}"
        position += 1


# log4j2.properties' layout: "HH:mm:ss LEVEL logger: message"; a stack trace's frames start with "at".
_ERROR_LINE = re.compile(r"^\d\d:\d\d:\d\d ERROR ")
_JAVA_FRAME = re.compile(r"^\s+at [\w$.]+\(.*\)$")


@pytest.mark.spark
def test_the_readme_and_make_demo_log_no_error_and_no_stack_trace(readme_run):
    """A reader's first loads and make demo's job (run in the same fresh process) print nothing at
    Spark's ERROR level and no Java stack trace (issue 57: the demo's first load printed a failed
    code compilation twice)."""
    stderr = readme_run["stderr"]
    lines = stderr.splitlines()
    assert [line for line in lines if _ERROR_LINE.match(line)] == [], stderr[-6000:]
    assert [line for line in lines if _JAVA_FRAME.match(line)][:5] == [], stderr[-6000:]
    assert "Whole-stage codegen disabled" not in stderr
