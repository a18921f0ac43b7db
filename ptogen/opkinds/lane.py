"""Vector-lane ops: `dst[i] = f(src[i], ...)` for each active lane of a predicate mask."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..importer.contract import FALLBACK, PageOp
from ..rules.parts import TypeListing, part, when_values
from ..testing.golden import (
    MASKS,
    Check,
    GoldenContext,
    compare,
    compute_dtype,
    describe_mismatch,
    inputs,
    is_float,
    random_values,
)
from ..testing.plan import (
    Call,
    CompileCase,
    OpTests,
    TileDecl,
    VectorKernel,
    dtype_def,
    other_dtype,
    special_scalars,
)
from ..testing.refmath import narrow
from ..testing.results import Outcome
from .base import Job, OpKind

if TYPE_CHECKING:
    from ..kind_api import OpViewAPI, ProjectViewAPI

VECTOR_BYTES = 256  # register width of the vector model: N = 256 / sizeof(T)


# Mask patterns of the runtime cases. A pattern marked ", merging" runs under MODE_MERGING (inactive
# lanes keep the destination's value); the rest under MODE_ZEROING. Every destination starts from the
# case's own random register, so zeroing is seen to clear it.
MERGING = ", merging"
VECTOR_MASKS = [
    "all lanes",
    "first 5 lanes",
    "alternate lanes",
    "no lanes",
    "alternate lanes" + MERGING,
    "first 5 lanes" + MERGING,
]


def mask_pattern(label: str) -> tuple[str, bool]:
    """(the predicate pattern of a case's mask label, whether the case merges)."""
    merging = label.endswith(MERGING)
    return (label[: -len(MERGING)] if merging else label), merging


def _plan_vector(project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
    profiles = [p.name for p in project.profiles]
    simulated = project.simulated_profile.name
    tests.includes.append("pto/vsim/builtins.hpp")
    order = [d.name for d in project.targets.dtypes]
    dtypes: list[str] = []
    for p in profiles:
        dtypes += [d for d in op.test_dtypes(p) if d not in dtypes]
    first = 0
    for dtype in sorted(dtypes, key=order.index):
        d = dtype_def(project, dtype)
        # The builtins run under the simulated profile's checks only; the other profiles' rules are
        # the compile cases'.
        on = [simulated] if dtype in op.test_dtypes(simulated) else []
        if not on:
            continue
        scalars = special_scalars(op, d)
        tests.vector.append(
            VectorKernel(
                dtype,
                first,
                dtype,
                VECTOR_BYTES * 8 // d.bits,
                on,
                VECTOR_MASKS,
                scalars,
            )
        )
        first += len(VECTOR_MASKS) * len(scalars)
    for p in profiles:
        for rv in op.rules_for(p, static=True):
            rule = rv.rule
            listing = part(rule, TypeListing)
            if all(listing.operand_dtypes(rv, o, when_values(rule)) is None for o in rule.rule_operands):
                continue  # a vector op's tests break only the rules that restrict element types
            bad = other_dtype(project, rv.dtypes_cpp, ["int32_t", "int16_t", "float", "half"])
            ok = op.test_dtypes(p)
            tests.compile.append(
                CompileCase(
                    f"fail_{p.lower()}_{rv.id}",
                    p,
                    rv,
                    rv.id,
                    [TileDecl("input", bad)],
                    Call([], []),
                    "element type outside the list",
                )
            )
            if ok and not any(c.profile == p and c.rv is None for c in tests.compile):
                tests.compile.append(
                    CompileCase(
                        f"legal_{p.lower()}",
                        p,
                        None,
                        "legal",
                        [TileDecl("input", ok[0])],
                        Call([], []),
                        "legal twin",
                    )
                )


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
        _plan_vector(project, op, tests)

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        op = gx.op
        ref = gx.reference
        storage = gx.np_type(gx.vector.dtype)
        cdt = compute_dtype(storage)
        lanes = gx.vector.lanes
        checks: list[Check] = []
        k = gx.vector.first
        for mask_name in gx.vector.masks:
            pattern, merging = mask_pattern(mask_name)
            predicate = MASKS[pattern](lanes)
            for value in gx.vector.scalars:
                vals: dict[str, np.ndarray] = {}
                seed = f"{gx.op_name}/{gx.entry.group}/{k}"
                for name, kind in op.operands.items():
                    if op.roles[name] == "dst":
                        continue
                    if kind == "vreg":
                        vals[name] = inputs(storage, lanes, f"{seed}/{name}")
                        vals[name].tofile(data / f"c{k}_{name}.bin")
                    elif kind == "scalar":
                        s = np.array([value], dtype=np.float64 if is_float(storage) else np.int64).astype(
                            storage
                        )
                        s.tofile(data / f"c{k}_{name}.bin")
                        vals[name] = s.reshape(())
                    elif kind == "mask":
                        # The predicate follows the case's pattern; other masks (carry-in) are random bits.
                        bits = (
                            predicate
                            if op.roles[name] == "mask"
                            else random_values(np.dtype(np.uint8), lanes, f"{seed}/{name}") % 2 == 1
                        )
                        bits.astype(np.uint8).tofile(data / f"c{k}_{name}.bin")
                        vals[name] = bits.astype(np.uint8)
                args = [np.asarray(vals[n]).astype(cdt) for n in op.inputs]
                wants = {}
                for i, out in enumerate(op.outputs):
                    fn = ref.reference if i == 0 else getattr(ref, f"reference_{out}")
                    kind = op.operands[out]
                    out_type = storage if kind == "vreg" else np.dtype(np.uint8)
                    # What the destination held before the call: what a merging case keeps.
                    before = random_values(out_type, lanes, f"{seed}/{out}/before")
                    if kind != "vreg":
                        before = (before % 2).astype(np.uint8)
                    before.tofile(data / f"c{k}_{out}.bin")
                    with np.errstate(all="ignore"):
                        active = np.asarray(fn(cdt.type, storage.type, *args))
                    active = narrow(active, out_type) if kind == "vreg" else (active != 0).astype(np.uint8)
                    inactive = before if merging else np.zeros(lanes, dtype=out_type)
                    wants[out] = (np.where(predicate, active, inactive).astype(out_type), out_type)
                label = f"{gx.label} case {k} ({mask_name}, scalar {value})"

                def check(
                    data_dir: Path, k: int = k, wants: dict[str, Any] = wants, label: str = label
                ) -> Outcome:
                    for out, (want, out_type) in wants.items():
                        got = np.fromfile(data_dir / f"c{k}_{out}.out", dtype=out_type)
                        bad = compare(got, want, op.tolerance)
                        if bad.any():
                            return Outcome("fail", label, describe_mismatch(bad, got, want, f"{out} lane"))
                    return Outcome("pass", label)

                checks.append(check)
                k += 1
        return checks
