"""Tokenizer for Doris DDL.

Produces :class:`Token` objects carrying their kind, value, the exact source text and the 1-based
line and column where they start, so the parser can point at the offending character.

Token kinds:

- ``IDENT``: a bare identifier or keyword (keywords are contextual; the parser compares
  ``token.upper``). Identifiers may start with a digit if they contain a non-digit character
  (``1st_col``), as Doris allows.
- ``QIDENT``: a ```backquoted``` identifier; ``value`` is the name with doubled backquotes undone.
  A quoted identifier is never a keyword.
- ``STRING``: a ``'single'`` or ``"double"`` quoted literal; ``value`` is the unescaped text
  (MySQL escapes: ``\\n``, ``\\t``, ``\\\\``, ``\\'``, ``\\"``, ``\\0``, ... and a doubled quote).
- ``NUMBER``: an unsigned integer or decimal literal (``10``, ``10.5``, ``.5``, ``1e3``); a sign
  is a separate ``OP`` token.
- ``OP``: one punctuation character: ``( ) [ ] , ; = . < > : - + * / % ! |`` etc.
- ``EOF``: end of input (always the last token).

Comments (``-- ...``, ``# ...`` and ``/* ... */``) and whitespace are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass

from iceberg_doris.errors import DdlSyntaxError

__all__ = ["Token", "TokenStream", "tokenize", "IDENT", "QIDENT", "STRING", "NUMBER", "OP", "EOF"]

IDENT = "IDENT"
QIDENT = "QIDENT"
STRING = "STRING"
NUMBER = "NUMBER"
OP = "OP"
EOF = "EOF"

_ESCAPES = {
    "0": "\0",
    "b": "\b",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "Z": "\x1a",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "`": "`",
}

_OPERATORS = set("()[],;=.<>:-+*/%!|&^~{}?@")


@dataclass(frozen=True)
class Token:
    """One lexical token. ``start``/``end`` are offsets into the statement (end exclusive)."""

    kind: str
    value: str
    text: str
    line: int
    column: int
    start: int
    end: int

    @property
    def upper(self) -> str:
        """The value upper-cased, for keyword comparisons (empty for quoted tokens)."""
        return self.value.upper() if self.kind == IDENT else ""

    def is_keyword(self, *words: str) -> bool:
        """True if this is a bare identifier equal (case-insensitively) to one of ``words``."""
        if self.kind != IDENT:
            return False
        upper = self.value.upper()
        return any(upper == w.upper() for w in words)

    def is_op(self, *chars: str) -> bool:
        return self.kind == OP and self.value in chars

    def describe(self) -> str:
        """How the token is named in error messages: ``'PARTITION'`` or ``end of input``."""
        if self.kind == EOF:
            return "end of input"
        text = self.text if len(self.text) <= 40 else self.text[:37] + "..."
        if self.kind == STRING:
            return f"string {text}"
        return f"'{text}'"


def _is_ident_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_" or ch == "$"


def tokenize(sql: str) -> list[Token]:
    """Splits ``sql`` into tokens; raises :class:`DdlSyntaxError` on an unterminated string,
    quoted identifier or comment, or on a character that cannot start a token."""
    tokens: list[Token] = []
    n = len(sql)
    i = 0
    line = 1
    line_start = 0  # offset of the first character of the current line

    def error(message: str, offset: int) -> DdlSyntaxError:
        ln = sql.count("\n", 0, offset) + 1
        col = offset - (sql.rfind("\n", 0, offset) + 1) + 1
        return DdlSyntaxError(message, line=ln, column=col, statement=sql)

    def advance_lines(segment_start: int, segment_end: int) -> None:
        nonlocal line, line_start
        newlines = sql.count("\n", segment_start, segment_end)
        if newlines:
            line += newlines
            line_start = sql.rfind("\n", segment_start, segment_end) + 1

    while i < n:
        ch = sql[i]
        # whitespace
        if ch.isspace():
            if ch == "\n":
                line += 1
                line_start = i + 1
            i += 1
            continue
        # comments
        if ch == "-" and sql.startswith("--", i) or ch == "#":
            j = sql.find("\n", i)
            i = n if j < 0 else j
            continue
        if ch == "/" and sql.startswith("/*", i):
            j = sql.find("*/", i + 2)
            if j < 0:
                raise error("Unterminated comment: '/*' has no closing '*/'", i)
            advance_lines(i, j + 2)
            i = j + 2
            continue

        start = i
        tok_line = line
        tok_col = i - line_start + 1

        if ch in "'\"":
            quote = ch
            j = i + 1
            parts: list[str] = []
            while True:
                if j >= n:
                    raise error(f"Unterminated string literal: {quote} has no closing {quote}", start)
                c = sql[j]
                if c == "\\":
                    if j + 1 >= n:
                        raise error(f"Unterminated string literal: {quote} has no closing {quote}", start)
                    nxt = sql[j + 1]
                    # MySQL keeps the backslash for \% and \_ (LIKE wildcards) and unknown escapes
                    parts.append(_ESCAPES.get(nxt, "\\" + nxt if nxt in "%_" else nxt))
                    j += 2
                    continue
                if c == quote:
                    if j + 1 < n and sql[j + 1] == quote:  # doubled quote
                        parts.append(quote)
                        j += 2
                        continue
                    j += 1
                    break
                parts.append(c)
                j += 1
            text = sql[start:j]
            tokens.append(Token(STRING, "".join(parts), text, tok_line, tok_col, start, j))
            advance_lines(start, j)
            i = j
            continue

        if ch == "`":
            j = i + 1
            parts = []
            while True:
                if j >= n:
                    raise error("Unterminated quoted identifier: ` has no closing `", start)
                c = sql[j]
                if c == "`":
                    if j + 1 < n and sql[j + 1] == "`":
                        parts.append("`")
                        j += 2
                        continue
                    j += 1
                    break
                parts.append(c)
                j += 1
            name = "".join(parts)
            if not name:
                raise error("Empty quoted identifier ``", start)
            text = sql[start:j]
            tokens.append(Token(QIDENT, name, text, tok_line, tok_col, start, j))
            advance_lines(start, j)
            i = j
            continue

        if ch.isdigit() or (ch == "." and i + 1 < n and sql[i + 1].isdigit()):
            j = i
            while j < n and sql[j].isdigit():
                j += 1
            # identifier starting with digits, e.g. 1st_col
            if j < n and (sql[j].isalpha() or sql[j] == "_") and not _looks_like_exponent(sql, j):
                while j < n and _is_ident_char(sql[j]):
                    j += 1
                tokens.append(Token(IDENT, sql[start:j], sql[start:j], tok_line, tok_col, start, j))
                i = j
                continue
            if j < n and sql[j] == "." and j + 1 < n and sql[j + 1].isdigit():
                j += 1
                while j < n and sql[j].isdigit():
                    j += 1
            elif j < n and sql[j] == "." and (j + 1 >= n or not _is_ident_char(sql[j + 1])):
                j += 1  # "10." is a number
            if _looks_like_exponent(sql, j):
                j += 1
                if sql[j] in "+-":
                    j += 1
                while j < n and sql[j].isdigit():
                    j += 1
            if j < n and (sql[j].isalpha() or sql[j] == "_"):
                raise error(f"Invalid number '{sql[start:j + 1]}'", start)
            text = sql[start:j]
            tokens.append(Token(NUMBER, text, text, tok_line, tok_col, start, j))
            i = j
            continue

        if _is_ident_char(ch) and ch != "$":
            j = i + 1
            while j < n and _is_ident_char(sql[j]):
                j += 1
            text = sql[start:j]
            tokens.append(Token(IDENT, text, text, tok_line, tok_col, start, j))
            i = j
            continue

        if ch in _OPERATORS:
            tokens.append(Token(OP, ch, ch, tok_line, tok_col, start, i + 1))
            i += 1
            continue

        raise error(f"Unexpected character '{ch}'", i)

    tokens.append(Token(EOF, "", "", line, n - line_start + 1, n, n))
    return tokens


def _looks_like_exponent(sql: str, j: int) -> bool:
    """``e``/``E`` at ``j`` followed by digits (optionally signed) makes an exponent."""
    n = len(sql)
    if j >= n or sql[j] not in "eE":
        return False
    k = j + 1
    if k < n and sql[k] in "+-":
        k += 1
    if k >= n or not sql[k].isdigit():
        return False
    while k < n and sql[k].isdigit():
        k += 1
    return k >= n or not _is_ident_char(sql[k])


class TokenStream:
    """A cursor over the tokens of one statement, with helpers that raise
    :class:`DdlSyntaxError` naming what was expected and what was found."""

    def __init__(self, sql: str, tokens: list[Token] | None = None):
        self.sql = sql
        self.tokens = tokens if tokens is not None else tokenize(sql)
        self.pos = 0

    # -- looking ---------------------------------------------------------------------------
    def peek(self, offset: int = 0) -> Token:
        index = min(self.pos + offset, len(self.tokens) - 1)
        return self.tokens[index]

    @property
    def at_end(self) -> bool:
        return self.peek().kind == EOF

    def at_keyword(self, *words: str) -> bool:
        return self.peek().is_keyword(*words)

    def at_op(self, *chars: str) -> bool:
        return self.peek().is_op(*chars)

    # -- consuming -------------------------------------------------------------------------
    def next(self) -> Token:
        token = self.peek()
        if token.kind != EOF:
            self.pos += 1
        return token

    def accept_keyword(self, *words: str) -> Token | None:
        if self.peek().is_keyword(*words):
            return self.next()
        return None

    def accept_op(self, *chars: str) -> Token | None:
        if self.peek().is_op(*chars):
            return self.next()
        return None

    def expect_keyword(self, *words: str) -> Token:
        token = self.peek()
        if token.is_keyword(*words):
            return self.next()
        raise self.error_expected(_alternatives(words), token)

    def expect_op(self, char: str) -> Token:
        token = self.peek()
        if token.is_op(char):
            return self.next()
        raise self.error_expected(f"'{char}'", token)

    def expect_identifier(self, what: str = "an identifier") -> Token:
        """A bare or backquoted identifier."""
        token = self.peek()
        if token.kind in (IDENT, QIDENT):
            return self.next()
        raise self.error_expected(what, token)

    def expect_string(self, what: str = "a quoted string") -> Token:
        token = self.peek()
        if token.kind == STRING:
            return self.next()
        raise self.error_expected(what, token)

    def expect_integer(self, what: str = "an integer") -> int:
        token = self.peek()
        if token.kind == NUMBER and token.value.isdigit():
            self.next()
            return int(token.value)
        raise self.error_expected(what, token)

    # -- errors ----------------------------------------------------------------------------
    def error(self, message: str, token: Token | None = None) -> DdlSyntaxError:
        token = token or self.peek()
        return DdlSyntaxError(message, line=token.line, column=token.column, statement=self.sql)

    def error_expected(self, expected: str, token: Token | None = None) -> DdlSyntaxError:
        token = token or self.peek()
        return self.error(f"Expected {expected} but found {token.describe()}", token)

    def text_between(self, first: Token, last: Token) -> str:
        """The source text from the start of ``first`` to the end of ``last``."""
        return self.sql[first.start : last.end]


def _alternatives(words: tuple[str, ...] | list[str]) -> str:
    quoted = [f"'{w}'" for w in words]
    if len(quoted) == 1:
        return quoted[0]
    return ", ".join(quoted[:-1]) + " or " + quoted[-1]
