"""Time in the vault's timezone. MEMGIT_NOW (ISO date-time) pins the clock for replays and tests."""

from __future__ import annotations

import datetime as dt
import os

from memgit.errors import UsageError


def zone(name: str) -> dt.tzinfo:
    if name.upper() == "UTC":
        return dt.timezone.utc
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise UsageError(f".memgit.yaml: unknown timezone {name!r}", "use an IANA name such as Europe/Berlin") from None


# git stores seconds since 1970; a margin of a day keeps every timezone shift inside datetime's range.
_EARLIEST = dt.datetime(1970, 1, 2)
_LATEST = dt.datetime(9999, 12, 30)


def parse_time(text: str, tz: dt.tzinfo) -> dt.datetime:
    try:
        value = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"not a date-time: {text!r}", "use ISO 8601, e.g. 2026-01-15T10:04 or 2026-01-15") from None
    if not _EARLIEST <= value.replace(tzinfo=None) <= _LATEST:
        raise UsageError(
            f"date-time out of range: {text!r}", "git records times from 1970 to 9999; use one in that range"
        )
    try:
        return value.replace(tzinfo=tz) if value.tzinfo is None else value.astimezone(tz)
    except OverflowError:
        raise UsageError(
            f"date-time out of range: {text!r}", "git records times from 1970 to 9999; use one in that range"
        ) from None


def parse_date(text: str) -> str:
    """An ISO date; a date-time where a date was expected (2026-01-15T10:04) means its calendar date as written."""
    try:
        return dt.date.fromisoformat(text.strip()).isoformat()
    except ValueError:
        pass
    try:
        return dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00")).date().isoformat()
    except ValueError:
        raise UsageError(f"not a date: {text!r}", "use YYYY-MM-DD") from None


def now(tz: dt.tzinfo) -> dt.datetime:
    pinned = os.environ.get("MEMGIT_NOW")
    if pinned:
        try:
            return parse_time(pinned, tz)
        except UsageError as exc:
            raise UsageError(f"MEMGIT_NOW: {exc.message}", exc.hint) from None
    return dt.datetime.now(tz).replace(microsecond=0)


def iso(moment: dt.datetime) -> str:
    return moment.isoformat(timespec="seconds")
