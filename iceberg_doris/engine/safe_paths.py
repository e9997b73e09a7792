"""Folders named after user-supplied names (namespaces, tables, labels) that cannot escape.

A name becomes exactly one path segment: everything but ASCII letters, digits, ``-`` and ``_`` is
percent-encoded (``/``, ``.``, ``:``, ``%``, NUL, spaces, glob characters, non-ASCII), so a name can
neither climb (``..``), split (``a/b``), start over (``/tmp/x``), look like a URI scheme (``a:b``)
nor be read as a glob when the folder is read back. Names that the rules for new tables and labels
accept (letters, digits, ``-``, ``_``) stay as they are. A segment longer than a file system allows
is cut and made unique with a hash of the whole name, so the same name always gives the same folder.
"""

from __future__ import annotations

import hashlib

_KEPT = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
# File systems allow 255 bytes per name; leave room for writers' temporary prefixes/suffixes.
MAX_SEGMENT = 200
_CUT = 150


def path_segment(name: str) -> str:
    """``name`` as one folder name: percent-encoded (UTF-8), cut with a hash when too long."""
    if not isinstance(name, str) or not name:
        raise ValueError("a path segment needs a non-empty name")
    encoded = "".join(ch if ch in _KEPT else _percent(ch) for ch in name)
    if len(encoded) <= MAX_SEGMENT:
        return encoded
    head = encoded[:_CUT]
    cut = head.rfind("%", len(head) - 2)  # never end inside a %XX escape
    if cut != -1:
        head = head[:cut]
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{head}-{digest}"


def child_location(base: str, *names: str) -> str:
    """``base`` followed by one encoded segment per name; always strictly inside ``base``."""
    segments = [path_segment(name) for name in names]
    for segment in segments:
        # By construction; checked because a mistake here would write outside the product's folder.
        if "/" in segment or segment in (".", ".."):
            raise AssertionError(f"unsafe path segment {segment!r}")
    return "/".join([base.rstrip("/"), *segments])


def _percent(ch: str) -> str:
    return "".join(f"%{byte:02X}" for byte in ch.encode("utf-8", "surrogatepass"))
