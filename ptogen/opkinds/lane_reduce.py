"""Vector reductions across lanes (the pages' reduction instruction set): the spec's expression is one
reduction, e.g. `sum(input)` or `max(input)`, folded over the active lanes of a span of the source
register, left to right from the first active lane (an inactive lane takes no part; a span with no
active lane gives zero), in the result's compute type. The kind sets the span and where its result
lands:

- `vector_reduce` (vcadd, vcmax, vcmin): the whole register, into lane 0; a maximum or minimum also
  writes the index of the lane it picked into lane 1;
- `group_reduce` (vcgadd, vcgmax, vcgmin): each 32-byte group g of lanes, into lane g;
- `pair_reduce` (vcpadd): each pair of lanes 2k and 2k + 1, into lane k.

The result lanes no span lands in are zeroed, or keep the destination's value under `MODE_MERGING`.
The simulation is generated into `pto/vsim/reduce.hpp` over the register model's folds
(`pto/vsim/fold.hpp`); the golden folds the same lanes in numpy.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np

from ..importer.contract import DOMAIN, PageOp
from ..kindlib.vector import MASKS, case_inputs, judge, mask_pattern, plan_vector, result_before
from ..lower.contract import LaneFold
from ..spec import expr as semantics
from ..testing.golden import Check, GoldenContext, compute_dtype, is_float
from ..testing.plan import OpTests
from ..testing.refmath import narrow
from .base import Job, OpKind

if TYPE_CHECKING:
    from ..kind_api import OpViewAPI, ProjectViewAPI

GROUP_BYTES = 32  # a group reduction's span: one 32-byte group of the register (8 groups)
GROUPS = 256 // GROUP_BYTES


class LaneReduce(OpKind):
    span: ClassVar[Literal["vector", "group", "pair"]]
    lanes: ClassVar[bool] = True

    # ----------------------------------------------------------------- import
    def recognise(self, page: PageOp) -> int | None:
        if not page.vector or page.reduces_over is None or not page.intro.startswith(self.domain_starts):
            return None
        return DOMAIN

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
    def result_index(self, op: OpViewAPI) -> str:
        return {"vector": "0", "group": "g", "pair": "k"}[self.span]

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        return "i"

    def reduce_index(self, op: OpViewAPI) -> str:
        return "i"

    def reduce_axis(self, op: OpViewAPI) -> int:
        return 0

    def picks_index(self, op: OpViewAPI) -> bool:
        """Whether the result also carries the picked lane's index (a whole-register max or min)."""
        found = semantics.reduction(op.loaded.expr)
        return self.span == "vector" and found is not None and found[0] in ("max", "min")

    # ----------------------------------------------------------------- backend
    def lane_fold(self, op: OpViewAPI) -> LaneFold:
        found = semantics.reduction(op.loaded.expr)
        assert found is not None
        reducer, term = found
        return LaneFold(
            reducer=reducer,
            term=semantics.to_cpp(term, lambda n: f"{n}_v", "C", op.enums_of),
            step=semantics.reducer_step(reducer),
            span=self.span,
            pick=self.picks_index(op),
            widens=reducer == "sum" and self.span == "vector",
        )

    def template(self, part: str) -> str:
        return f"opkinds/lane_reduce/{part}"  # one folder for the three spans

    def outputs(self, op: OpViewAPI) -> list[Job]:
        return [(op.doc_path, "docs/op_page.md.j2", {"op": op})]  # its C++ lives in pto/vsim/reduce.hpp

    # ----------------------------------------------------------------- tests
    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        plan_vector(project, op, tests, scalar_cases=False)

    def manifest_extra(self, op: OpViewAPI) -> dict[str, Any]:
        return {"pick": self.picks_index(op)}

    def spans(self, lanes: int) -> list[tuple[int, list[int]]]:
        """(result lane, the source lanes it folds) of a register of `lanes` lanes."""
        if self.span == "vector":
            return [(0, list(range(lanes)))]
        if self.span == "group":
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
                for lane, span in self.spans(lanes):
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


# Each kind's `domain_starts` is how its domain.md.j2 paragraph begins, which `ptogen import` reads.
class VectorReduce(LaneReduce):
    name: ClassVar[str] = "vector_reduce"
    span: ClassVar[Literal["vector", "group", "pair"]] = "vector"
    domain_starts: ClassVar[tuple[str, ...]] = ("Over the active lanes",)


class GroupReduce(LaneReduce):
    name: ClassVar[str] = "group_reduce"
    span: ClassVar[Literal["vector", "group", "pair"]] = "group"
    domain_starts: ClassVar[tuple[str, ...]] = ("For each 32-byte group",)


class PairReduce(LaneReduce):
    name: ClassVar[str] = "pair_reduce"
    span: ClassVar[Literal["vector", "group", "pair"]] = "pair"
    domain_starts: ClassVar[tuple[str, ...]] = ("For each pair of lanes",)
