"""Errors that point at the spec line a user has to fix."""

from __future__ import annotations

from dataclasses import dataclass


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
        return _one_line(f"{where}:{field} {self.message}")


def _one_line(text: str) -> str:
    # Keys, file names and Pydantic's echo of the input come from the spec: escape control
    # characters so an error stays one line (and cannot forge further `error:` lines).
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


class SpecErrors(Exception):
    """Several spec errors at once, so a user sees every bad field in one run."""

    def __init__(self, errors: list[SpecError]):
        super().__init__("\n".join(str(e) for e in errors))
        self.errors = errors


class GenerationError(Exception):
    """A stage after validation failed (template or formatter); nothing is written."""
