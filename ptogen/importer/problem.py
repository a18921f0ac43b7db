"""Why a page gives no spec."""

from __future__ import annotations

from ..errors import one_line


class ImportProblem(Exception):
    """Why a page gives no spec (one line); `line` is where on the page, when one place is to blame."""

    def __init__(self, message: str, line: int | None = None):
        super().__init__(message)
        self.line = line

    def located(self, page: object) -> str:
        """`page:line: reason` (or `page: reason` when no line is to blame), on one line."""
        where = f"{page}:{self.line}" if self.line else f"{page}"
        return f"{where}: {one_line(str(self))}"
