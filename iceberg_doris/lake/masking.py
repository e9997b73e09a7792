"""Secrets out of every text iceberg-doris shows: messages, log lines, ``repr``.

One helper, :func:`mask_secrets`, for every place that prints a URI or a foreign message:

- the password of a URI's user part: ``postgresql://lake:pw@db/meta`` -> ``postgresql://lake:***@db/meta``;
- secret query parameters: ``jdbc:postgresql://db/meta?user=lake&password=pw`` -> ``...&password=***``;
- any secret of 8 characters or more this process was told about (:func:`remember_secret`: the
  catalog password), wherever it appears, plain or URL-encoded, so a message from Spark, JDBC or
  Python that happens to quote it is masked too.
"""

from __future__ import annotations

import re
import threading
from urllib.parse import quote

MASK = "***"
# Shorter remembered secrets are masked inside URIs only: a development password such as "lake" or
# "postgres" replaced everywhere would garble the table and host names of every message.
MIN_FREE_TEXT_SECRET = 8

# scheme://user:password@ -- the password runs to the URI's last '@': more than a URL parser would
# take when an unquoted '/' or '@' is in it, which is the point (better mask a host than leak).
# Any number of slashes after the scheme: a mistyped URI ("postgresql:/u:pw@h") is masked too.
_URI_PASSWORD = re.compile(r"(?P<head>\b[A-Za-z][A-Za-z0-9+.\-]*:/*[^:/@\s'\"]*:)(?P<secret>[^\s'\"]*)@")
# ?password=..., &sslpassword=..., ;secret=... (JDBC URLs, query strings).
_SECRET_PARAMETER = re.compile(
    r"(?P<head>[?&;][A-Za-z0-9_.\-]*(?:password|passwd|pwd|secret|token)[A-Za-z0-9_.\-]*=)(?P<secret>[^&;#\s'\"]*)",
    re.IGNORECASE,
)

_lock = threading.Lock()
_remembered: set[str] = set()


def remember_secret(value: str | None) -> None:
    """Masks ``value`` in everything :func:`mask_secrets` handles from now on, in this process."""
    if value:
        with _lock:
            _remembered.add(value)


def mask_secrets(text: str) -> str:
    """``text`` with URI passwords, secret parameters and remembered secrets replaced by ``***``."""
    masked = _URI_PASSWORD.sub(lambda m: m.group("head") + MASK + "@", text)
    masked = _SECRET_PARAMETER.sub(lambda m: m.group("head") + MASK, masked)
    with _lock:
        secrets = sorted(_remembered, key=len, reverse=True)
    for secret in secrets:
        if len(secret) < MIN_FREE_TEXT_SECRET:
            continue
        for form in {secret, quote(secret, safe=""), quote(secret)}:
            masked = masked.replace(form, MASK)
    return masked
