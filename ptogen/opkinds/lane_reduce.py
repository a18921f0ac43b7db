"""Vector reductions across lanes (kind `lane_reduce`, the pages' reduction instruction set): the
spec's expression is one reduction, e.g. `sum(input)` or `max(input)`, folded over the active lanes of
a span of the source register, left to right from the first active lane (an inactive lane takes no
part; a span with no active lane gives zero), in the result's compute type. The spec names the span
(`semantics.folds`), which also sets where each result lands:

- `register` (vcadd, vcmax, vcmin): the whole register, into lane 0; a maximum or minimum also
  writes the index of the lane it picked into lane 1;
- `groups` (vcgadd, vcgmax, vcgmin): each 32-byte group g of lanes, into lane g;
- `pairs` (vcpadd): each pair of lanes 2k and 2k + 1, into lane k.

The result lanes no span lands in are zeroed, or keep the destination's value under `MODE_MERGING`.
The simulation is generated into `pto/vsim/reduce.hpp` over the register model's folds
(`pto/vsim/fold.hpp`); the golden folds the same lanes in numpy.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..importer.contract import DOMAIN, PageOp
from ..kindlib.vector import MASKS, case_inputs, judge, mask_pattern, plan_vector, result_before
from ..lower.contract import LaneFold
from ..spec import expr as semantics
from ..spec.kindfacts import KindFacts
from ..testing.golden import Check, GoldenContext, compute_dtype, is_float
from ..testing.plan import OpTests
from ..testing.refmath import narrow
from .base import Job, OpKind

if TYPE_CHECKING:
    from ..kind_api import OpViewAPI, ProjectViewAPI

GROUP_BYTES = 32  # a group reduction's span: one 32-byte group of the register (8 groups)
GROUPS = 256 // GROUP_BYTES


# Each span's domain.md.j2 paragraph begins so, which `ptogen import` reads the span back from.
DOMAIN_STARTS = {
    "register": "Over the active lanes",
    "groups": "For each 32-byte group",
    "pairs": "For each pair of lanes",
}
# Where the page's formula puts one span's result (its index notation).
RESULT_LANE = {"register": "0", "groups": "g", "pairs": "k"}


class LaneReduce(OpKind):
    name: ClassVar[str] = "lane_reduce"
    facts: ClassVar[KindFacts] = KindFacts(folds=tuple(DOMAIN_STARTS))
    lanes: ClassVar[bool] = True
    domain_starts: ClassVar[tuple[str, ...]] = tuple(DOMAIN_STARTS.values())

    # ----------------------------------------------------------------- import
    def recognise(self, page: PageOp) -> int | None:
        if not page.vector or page.reduces_over is None or self.span_of(page) is None:
            return None
        return DOMAIN

    @staticmethod
    def span_of(page: PageOp) -> str | None:
        return next((span for span, words in DOMAIN_STARTS.items() if page.intro.startswith(words)), None)

    def import_semantics(self, page: PageOp) -> dict[str, Any]:
        return {"folds": self.span_of(page)}

    def check_expr(self, expr: semantics.Node) -> list[str]:
        found = semantics.reduction(expr)
        if found is None:
            return [f"a {self.name} op's expression is one reduction, e.g. `sum(input)`"]
        reducer, term = found
        if semantics.is_arg_reduction(reducer) or reducer == "prod":
            return [f"{self.name} ops fold with sum, max or min"]
        if semantics.has_reduction(term):
            return ["reductions do not nest"]
        return []

    # ----------------------------------------------------------------- math
    @staticmethod
    def span(op: OpViewAPI) -> str:
        """What one result folds (`semantics.folds`): the register, its groups or its pairs of lanes."""
        return str(op.spec.semantics.folds)

    def result_index(self, op: OpViewAPI) -> str:
        return RESULT_LANE[self.span(op)]

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        return "i"

    def reduce_index(self, op: OpViewAPI) -> str:
        return "i"

    def reduce_axis(self, op: OpViewAPI) -> int:
        return 0

    def picks_index(self, op: OpViewAPI) -> bool:
        """Whether the result also carries the picked lane's index (a whole-register max or min)."""
        found = semantics.reduction(op.loaded.expr)
        return self.span(op) == "register" and found is not None and found[0] in ("max", "min")

    # ----------------------------------------------------------------- backend
    def lane_fold(self, op: OpViewAPI) -> LaneFold:
        found = semantics.reduction(op.loaded.expr)
        assert found is not None
        reducer, term = found
        return LaneFold(
            reducer=reducer,
            term=semantics.to_cpp(term, lambda n: f"{n}_v", "C", op.enums_of),
            step=semantics.reducer_step(reducer),
            span=self.span(op),
            pick=self.picks_index(op),
            widens=reducer == "sum" and self.span(op) == "register",
        )

    def outputs(self, op: OpViewAPI) -> list[Job]:
        return [(op.doc_path, "docs/op_page.md.j2", {"op": op})]  # its C++ lives in pto/vsim/reduce.hpp

    # ----------------------------------------------------------------- tests
    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        plan_vector(project, op, tests, scalar_cases=False)

    def manifest_extra(self, op: OpViewAPI) -> dict[str, Any]:
        return {"pick": self.picks_index(op), "folds": self.span(op)}

    @staticmethod
    def spans(folds: str, lanes: int) -> list[tuple[int, list[int]]]:
        """(result lane, the source lanes it folds) of a register of `lanes` lanes."""
        if folds == "register":
            return [(0, list(range(lanes)))]
        if folds == "groups":
            per = lanes // GROUPS
            return [(g, list(range(g * per, (g + 1) * per))) for g in range(GROUPS)]
        return [(k, [2 * k, 2 * k + 1]) for k in range(lanes // 2)]

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        op = gx.op
        storage = gx.np_type(gx.vector.dtype)
        cdt = compute_dtype(storage)
        lanes = gx.vector.lanes
        (source,) = op.inputs
        (out,) = op.outputs
        checks: list[Check] = []
        k = gx.vector.first
        for mask_name in gx.vector.masks:
            pattern, merging = mask_pattern(mask_name)
            predicate = MASKS[pattern](lanes)
            for value in gx.vector.scalars:
                x = case_inputs(gx, data, k, predicate, value)[source].astype(cdt)
                before = result_before(gx, data, k, out, storage)
                want = before.copy() if merging else np.zeros(lanes, dtype=storage)
                for lane, span in self.spans(op.extra["folds"], lanes):
                    picked = [i for i in span if predicate[i]]
                    if not picked:
                        want[lane] = 0
                        continue
                    with np.errstate(all="ignore"):
                        folded = np.asarray(gx.reference.reference(cdt.type, storage.type, x[picked]))
                    result = folded.reshape(-1)[0]
                    want[lane] = narrow(np.array([result], dtype=cdt), storage)[0]
                    if op.extra["pick"]:
                        index = next(i for i in picked if _same(x[i], result))
                        want[1:2] = np.array([index], dtype=f"u{storage.itemsize}").view(storage)
                if op.extra["pick"] and not predicate.any():
                    want[1] = 0
                label = f"{gx.label} case {k} ({mask_name})"
                checks.append(judge(gx, k, {out: (want, storage)}, label))
                k += 1
        return checks


def _same(a: Any, b: Any) -> bool:
    """Whether a lane holds the folded value bit for bit (any NaN matches a NaN)."""
    if is_float(np.asarray(a).dtype) and np.isnan(a):
        return bool(np.isnan(b))
    return bool(a == b) and (not is_float(np.asarray(a).dtype) or np.signbit(a) == np.signbit(b))
