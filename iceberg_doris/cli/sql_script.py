"""Splitting a SQL script into statements (``;`` outside quotes, backquotes and comments)."""

from __future__ import annotations


def split_statements(script: str) -> list[str]:
    """Returns the non-empty statements of ``script``, without their terminating ``;``.

    >>> split_statements("SELECT ';' AS a; -- done;\\nCALL doris.help()")
    ["SELECT ';' AS a", '-- done;\\nCALL doris.help()']
    """
    statements: list[str] = []
    current: list[str] = []
    i, n = 0, len(script)
    quote: str | None = None
    while i < n:
        ch = script[i]
        if quote:
            current.append(ch)
            if ch == "\\" and quote != "`" and i + 1 < n:
                current.append(script[i + 1])
                i += 2
                continue
            if ch == quote:
                quote = None
        elif ch in ("'", '"', "`"):
            quote = ch
            current.append(ch)
        elif script.startswith("--", i):
            end = script.find("\n", i)
            end = n if end < 0 else end
            current.append(script[i:end])
            i = end
            continue
        elif script.startswith("/*", i):
            end = script.find("*/", i + 2)
            end = n if end < 0 else end + 2
            current.append(script[i:end])
            i = end
            continue
        elif ch == ";":
            _flush(current, statements)
            current = []
        else:
            current.append(ch)
        i += 1
    _flush(current, statements)
    return statements


def _flush(current: list[str], statements: list[str]) -> None:
    text = "".join(current).strip()
    if text and not _only_comments(text):
        statements.append(text)


def _only_comments(text: str) -> bool:
    lines = [line.strip() for line in text.splitlines()]
    return all(not line or line.startswith("--") for line in lines) and "/*" not in text
