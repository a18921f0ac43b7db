"""Errors that point at the spec line a user has to fix."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


def one_line(text: str) -> str:
    """`text` with newlines and other control or bidi characters written as escapes, so an
    error message stays one line and cannot rewrite the terminal it is printed on."""
    return "".join(
        ch if ch == " " or unicodedata.category(ch)[0] not in "CZ" else ch.encode("unicode_escape").decode()
        for ch in text
    )


def nearest(word: str, known: list[str] | set[str]) -> str | None:
    """The entry of `known` that `word` is a near miss of (case aside), or None."""
    import difflib

    by_fold = {k.lower(): k for k in known}
    close = difflib.get_close_matches(word.lower(), list(by_fold), n=1, cutoff=0.6)
    return by_fold[close[0]] if close else None


def did_you_mean(word: str, known: list[str] | set[str]) -> str:
    """` (did you mean 'x'?)` for a near miss among `known`, else an empty string."""
    close = nearest(word, known)
    return f" (did you mean {close!r}?)" if close is not None else ""


@dataclass
class SpecError(Exception):
    """A problem in one spec file, reported as `file:line: field: message`."""

    path: str
    line: int | None
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        field = f" {self.field}:" if self.field else ""
        return one_line(f"{where}:{field} {self.message}")


class SpecErrors(Exception):
    """Several spec errors at once, so a user sees every bad field in one run."""

    def __init__(self, errors: list[SpecError]):
        super().__init__("\n".join(str(e) for e in errors))
        self.errors = errors


def collected(errors: list[SpecError], step: Callable[[], T]) -> T | None:
    """`step()`, or None with its SpecError(s) added to `errors`: a loader reads every file before
    it reports, so one run shows every mistake."""
    try:
        return step()
    except SpecError as exc:
        errors.append(exc)
    except SpecErrors as exc:
        errors.extend(exc.errors)
    return None


class GenerationError(Exception):
    """A stage after validation failed (template or formatter); nothing is written."""

    def __init__(self, message: str, located: bool = False):
        super().__init__(message)
        self.located = located  # already names the spec file and line


@contextmanager
def located(where: str, what: str) -> Iterator[None]:
    """Put `file:line` of the spec entry being generated on any error raised inside (as
    torchgen's context does), so a generation failure names the spec that caused it."""
    try:
        yield
    except GenerationError as exc:
        if exc.located:
            raise
        raise GenerationError(f"{where}: {what}: {exc}", located=True) from exc
    except (ValueError, KeyError, TypeError, AttributeError, LookupError) as exc:
        raise GenerationError(f"{where}: {what}: {type(exc).__name__}: {exc}", located=True) from exc
