"""Doris time zone settings (``dynamic_partition.time_zone``): names, aliases and offsets as a
``tzinfo``, and the FE's system time zone when none is set."""

from __future__ import annotations

import datetime as _dt
import os
import re
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from iceberg_doris.errors import InvalidTableDefinitionError

_OFFSET_RE = re.compile(r"([+-]?)(\d{2}):(\d{2})")
_UTC_OFFSET_RE = re.compile(r"(?:UTC|GMT)([+-])(\d{1,2})(?::(\d{2}))?")
_TIME_ZONE_ALIASES = {"CST": "Asia/Shanghai", "PRC": "Asia/Shanghai", "UTC": "UTC", "GMT": "UTC", "Z": "UTC"}


def resolve_time_zone(name: str) -> _dt.tzinfo:
    """A Doris time zone setting (``Asia/Shanghai``, ``+08:00``, ``UTC``, ``CST``) as a ``tzinfo``.

    Unknown values fail with ``Unknown or incorrect time zone: '<v>'`` (``ERR_UNKNOWN_TIME_ZONE``).
    """
    value = (name or "").strip()
    error = InvalidTableDefinitionError(f"Unknown or incorrect time zone: '{name}'")
    m = _OFFSET_RE.fullmatch(value)
    sign = 1
    hours = minutes = None
    if m:
        sign = -1 if m.group(1) == "-" else 1
        hours, minutes = int(m.group(2)), int(m.group(3))
    else:
        m2 = _UTC_OFFSET_RE.fullmatch(value)
        if m2:
            sign = -1 if m2.group(1) == "-" else 1
            hours, minutes = int(m2.group(2)), int(m2.group(3) or 0)
    if hours is not None and minutes is not None:
        total = sign * (hours * 60 + minutes)
        if minutes >= 60 or not -12 * 60 <= total <= 14 * 60:
            raise error
        return _dt.timezone(_dt.timedelta(minutes=total))
    zone = _TIME_ZONE_ALIASES.get(value)
    if zone is None:
        if "/" not in value:
            raise error
        zone = value
    try:
        return ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        raise error from None


def system_time_zone() -> str:
    """The FE's system time zone: ``$TZ`` or ``/etc/localtime``, else UTC."""
    tz = os.environ.get("TZ", "").lstrip(":")
    if tz:
        try:
            resolve_time_zone(tz)
            return tz
        except InvalidTableDefinitionError:
            pass
    try:
        target = os.path.realpath("/etc/localtime")
        if "zoneinfo/" in target:
            candidate = target.split("zoneinfo/", 1)[1]
            resolve_time_zone(candidate)
            return candidate
    except (OSError, InvalidTableDefinitionError):
        pass
    return "UTC"

