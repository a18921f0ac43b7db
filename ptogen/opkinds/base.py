"""The strategy every op kind implements (see the package docstring)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from pathlib import Path

    from ..lower.views import OpView, ProjectView
    from ..testing.golden import Check, GoldenContext
    from ..testing.plan import OpTests

Job = tuple[str, str, dict[str, Any]]


class OpKind:
    name: ClassVar[str]
    # Operates on vector registers lane by lane (its functions live in pto_vec.hpp), not on tiles.
    lanes: ClassVar[bool] = False

    def template(self, part: str) -> str:
        """A template of this kind's own text: templates/opkinds/<name>/<part>."""
        return f"opkinds/{self.name}/{part}"

    # ----------------------------------------------------------------- math
    def result_index(self, op: OpView) -> str:
        """LaTeX index of one result element, e.g. `i,j` (tile) or `i` (lane, row reduction)."""
        raise NotImplementedError

    def operand_index(self, op: OpView, operand: str) -> str:
        """LaTeX index of an operand element as the math reads it."""
        raise NotImplementedError

    def reduce_index(self, op: OpView) -> str:
        """The index a reduction in the expression runs over (kinds without one refuse)."""
        raise ValueError(f"{self.name} ops do not reduce")

    # ----------------------------------------------------------------- outputs
    def outputs(self, op: OpView) -> list[Job]:
        """Files this op contributes besides the project-wide ones (header, checks, indexes)."""
        raise NotImplementedError

    # ----------------------------------------------------------------- tests
    def plan_tests(self, project: ProjectView, op: OpView, tests: OpTests) -> None:
        raise NotImplementedError

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        """Write the inputs of a runtime group's cases into `data`; return one check per case."""
        raise NotImplementedError
