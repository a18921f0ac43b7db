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
        return f"{where}:{field} {self.message}"


class SpecErrors(Exception):
    """Several spec errors at once, so a user sees every bad field in one run."""

    def __init__(self, errors: list[SpecError]):
        super().__init__("\n".join(str(e) for e in errors))
        self.errors = errors


class GenerationError(Exception):
    """A stage after validation failed (template or formatter); nothing is written."""
