"""What the test planner (testing/plan.py), the golden runner and the benchmark ask of an op kind
(`KindTests`): its runtime cases, how its test kernels call and shape its operands, and the golden
preparation of each case. What a planned case needs around its call (inputs loaded, statements,
results stored, further declarations run) the kind's planner writes into the case itself
(`plan.RuntimeCase`), so the kernel templates ask the plan, not the kind."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from pathlib import Path

    from ..kind_api import FormViewAPI, OpViewAPI, ProjectViewAPI
    from ..rule_api import TileDecl
    from .golden import Check, GoldenContext
    from .plan import OpTests


class KindTests:
    """An op kind as its tests plan, call and judge it."""

    # Every operand is a whole tile of the destination's shape and element (i, j) of the result reads
    # element (i, j) of each source, so `python -m ptogen.bench --sim` can time it on square tiles.
    whole_tile_bench: ClassVar[bool] = False

    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        """Plan the op's runtime kernels and rule-driven cases into `tests`."""
        raise NotImplementedError

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        """Write the inputs of a runtime group's cases into `data`; return one check per case."""
        raise NotImplementedError

    def manifest_extra(self, op: OpViewAPI) -> dict[str, Any]:
        """Facts of the op that this kind's `prepare_cases` needs beyond the common manifest."""
        return {}

    def tile_shape(
        self, op: OpViewAPI, operand: str, rows: int, cols: int, vr: int, vc: int
    ) -> tuple[int, int, int, int]:
        """(rows, cols, valid rows, valid cols) of a tile operand when the source tile has the
        given shape; element-wise kinds use one shape for every tile."""
        return rows, cols, vr, vc

    def shaped_tile(self, op: OpViewAPI, tile: TileDecl) -> TileDecl:
        """A test tile of an operand as this kind declares it, given the plan's tile: by default the
        same location and layout, shaped by `tile_shape`; a kind whose operands live in particular
        locations or layouts (the cube's Left, Right and Acc tiles) sets those too."""
        rows, cols, vr, vc = self.tile_shape(
            op, tile.name, tile.rows, tile.cols, tile.valid_rows, tile.valid_cols
        )
        return replace(tile, rows=rows, cols=cols, valid_rows=vr, valid_cols=vc)

    def test_call(
        self, op: OpViewAPI, tiles: dict[str, TileDecl], variant: dict[str, str], scalar_expr: dict[str, str]
    ) -> tuple[list[str], list[str]] | None:
        """(template arguments, call arguments) of a test kernel's call of the main declaration when
        the kind spells it itself (every template argument explicit, as TCI's `TCI<TileT, T, 1>`), or
        None: the planner's default (value template arguments only where a variant sets them)."""
        return None

    def form_template_args(
        self, form: FormViewAPI, main_explicit: list[str], type_names: dict[str, str]
    ) -> list[str] | None:
        """Explicit template arguments of a test call of a further declaration, given the main call's
        (`main_explicit`, from `test_call`) and the C++ types of the test's tiles, when the kind
        spells its calls itself; None: the default (lower/testcalls.py)."""
        return None

    def form_tile(self, op: OpViewAPI, form: FormViewAPI, operand: str, like: TileDecl) -> TileDecl:
        """A tile only the further declaration `form` takes (`operand`), as its rule-driven compile
        cases declare it before renaming it `<operand>_f<k>`. Default: shaped like the destination
        (`like`); the MX products give the bias forms' tile its own one-row Bias shape."""
        return replace(like, name=operand)

    def test_contexts(self, op: OpViewAPI) -> list[tuple[str, str]]:
        """(C++ type, name) of the context operands the rule-driven compile cases of the main
        declaration declare (`plan_rule_cases`). Default: none."""
        return []

    def runs_untested(self, op: OpViewAPI) -> set[str]:
        """Element types outside the test matrix (`test_matrix: false`) that this kind's tests run
        for the op all the same (an MX product's fp8 elements and e8m0 scales); default: none."""
        return set()

