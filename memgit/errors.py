from __future__ import annotations


class MemgitError(Exception):
    """Base of every error the library raises; ``exit_code`` is what the CLI returns."""

    exit_code = 2

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class UsageError(MemgitError):
    exit_code = 2


class NotFound(MemgitError):
    exit_code = 1


class RuleViolation(MemgitError):
    exit_code = 1

    def __init__(self, problems: list, hint: str = "") -> None:  # type: ignore[type-arg]
        lines = [p.render() for p in problems]
        super().__init__("\n".join(lines) if lines else "rules rejected the change", hint)
        self.problems = problems


class Conflict(MemgitError):
    """Retryable: the lock timed out or the branch moved too often."""

    exit_code = 3
