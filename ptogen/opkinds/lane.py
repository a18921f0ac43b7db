"""Vector-lane ops: `dst[i] = f(src[i], ...)` for each active lane of a predicate mask."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..importer.contract import FALLBACK, PageOp
from ..kindlib.vector import MASKS, case_inputs, judge, mask_pattern, plan_vector, result_before
from ..spec import expr as semantics
from ..testing.golden import Check, GoldenContext, compute_dtype
from ..testing.plan import OpTests
from ..testing.refmath import narrow
from .base import Job, OpKind

if TYPE_CHECKING:
    from ..kind_api import OpViewAPI, ProjectViewAPI


class VectorLane(OpKind):
    name: ClassVar[str] = "lane"
    lanes: ClassVar[bool] = True
    domain_starts: ClassVar[tuple[str, ...]] = ("For each",)

    # ----------------------------------------------------------------- import
    def recognise(self, page: PageOp) -> int | None:
        return FALLBACK if page.vector else None  # a vector op, unless another kind recognises more

    def result_index(self, op: OpViewAPI) -> str:
        return "i"

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        return "i"

    def outputs(self, op: OpViewAPI) -> list[Job]:
        return [(op.doc_path, "docs/op_page.md.j2", {"op": op})]  # its C++ lives in pto_vec.hpp

    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        plan_vector(project, op, tests)

    def manifest_extra(self, op: OpViewAPI) -> dict[str, Any]:
        # A bitwise op's golden, as its builtin, computes on the elements' bit patterns.
        return {"pattern": True} if semantics.bitwise(op.loaded.expr) else {}

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        op = gx.op
        ref = gx.reference
        storage = gx.np_type(gx.vector.dtype)
        on_bits = bool(op.extra.get("pattern"))
        cdt = np.dtype(f"u{storage.itemsize}") if on_bits else compute_dtype(storage)
        lanes = gx.vector.lanes
        checks: list[Check] = []
        k = gx.vector.first
        for mask_name in gx.vector.masks:
            pattern, merging = mask_pattern(mask_name)
            predicate = MASKS[pattern](lanes)
            for value in gx.vector.scalars:
                vals = case_inputs(gx, data, k, predicate, value)
                befores = {}
                for out in op.outputs:
                    out_type = storage if op.operands[out] == "vreg" else np.dtype(np.uint8)
                    befores[out] = result_before(gx, data, k, out, out_type)
                # a result the expression reads (an accumulator) enters with its value before the call
                given = [np.asarray({**befores, **vals}[n]) for n in op.inputs]
                args = [x.view(cdt) if on_bits else x.astype(cdt) for x in given]
                wants: dict[str, tuple[np.ndarray, np.dtype]] = {}
                for i, out in enumerate(op.outputs):
                    fn = ref.reference if i == 0 else getattr(ref, f"reference_{out}")
                    kind = op.operands[out]
                    out_type = storage if kind == "vreg" else np.dtype(np.uint8)
                    before = befores[out]
                    with np.errstate(all="ignore"):
                        active = np.asarray(fn(cdt.type, storage.type, *args))
                    if kind != "vreg":
                        active = (active != 0).astype(np.uint8)
                    else:
                        active = active.astype(cdt).view(out_type) if on_bits else narrow(active, out_type)
                    inactive = before if merging else np.zeros(lanes, dtype=out_type)
                    wants[out] = (np.where(predicate, active, inactive).astype(out_type), out_type)
                label = f"{gx.label} case {k} ({mask_name}, scalar {value})"
                checks.append(judge(gx, k, wants, label))
                k += 1
        return checks
