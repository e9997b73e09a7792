"""The fenced blocks of README.md and docs/*.md, as the snippet test runs them.

A block opens with a line starting with three backquotes and an optional language and closes at
the next such line. ``python``, ``sql`` and ``bash`` blocks are code; any other (``text``, none)
shows output or a file's content. The line right before a block may carry one marker:

- ``<!-- not-run: <reason> -->`` on a code block: the test does not run it, for that reason;
- ``<!-- file: <relative path> -->`` on a text block: the block is the content of that file,
  written into the test's working folder when the run reaches it (input a later snippet reads).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

CODE_LANGUAGES = ("python", "sql", "bash")
_FENCE = re.compile(r"^```\s*([A-Za-z0-9_+-]*)\s*$")
_NOT_RUN = re.compile(r"^<!--\s*not-run:\s*(.*?)\s*-->\s*$")
_FILE = re.compile(r"^<!--\s*file:\s*(.*?)\s*-->\s*$")


@dataclass(frozen=True)
class Block:
    line: int  # 1-based line of the opening fence
    language: str  # "" for an unlabelled block
    text: str
    not_run_reason: str | None = None
    file_name: str | None = None
    source: str = "README.md"  # the Markdown file, as messages name it

    @property
    def is_code(self) -> bool:
        return self.language in CODE_LANGUAGES

    @property
    def where(self) -> str:
        return f"{self.source}:{self.line} ({self.language or 'text'})"


def parse_blocks(markdown: str, source: str = "README.md") -> list[Block]:
    """Every fenced block of ``markdown`` in order; raises ValueError on an unclosed fence or a
    marker that does not fit its block."""
    lines = markdown.splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        start = i
        end = start + 1
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        if end == len(lines):
            raise ValueError(f"{source}:{start + 1}: the fenced block is never closed")
        before = lines[start - 1] if start > 0 else ""
        block = Block(line=start + 1, language=match.group(1).lower(), text="\n".join(lines[start + 1 : end]) + "\n", source=source)
        not_run, file_name = _NOT_RUN.match(before), _FILE.match(before)
        if not_run:
            if not block.is_code:
                raise ValueError(f"{block.where}: a not-run marker belongs on a python, sql or bash block")
            if not not_run.group(1):
                raise ValueError(f"{block.where}: the not-run marker gives no reason")
            block = Block(block.line, block.language, block.text, not_run_reason=not_run.group(1), source=source)
        if file_name:
            name = file_name.group(1)
            if block.is_code or not name or Path(name).is_absolute() or ".." in Path(name).parts:
                raise ValueError(f"{block.where}: a file marker names a relative path and sits on a text block")
            block = Block(block.line, block.language, block.text, file_name=name, source=source)
        blocks.append(block)
        i = end + 1
    return blocks
