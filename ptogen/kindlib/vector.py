"""What the vector-register kinds share: the register width, the mask patterns of their runtime
cases, their test plan (one kernel per element type, compile cases for the element-type rules) and
the inputs each case writes (sources, predicate, the destination's bytes before the call)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..rules.parts import TypeListing, part, when_values
from ..testing.golden import (
    MASKS,
    Check,
    GoldenContext,
    compare,
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
from ..testing.results import Outcome

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


def plan_vector(project: ProjectViewAPI, op: OpViewAPI, tests: OpTests, scalar_cases: bool = True) -> None:
    """One kernel per element type the simulated profile admits (every mask pattern, each with
    every scalar test value, or, without `scalar_cases` and for an op that reads no scalar, once),
    and a compile case per element-type rule with a legal twin per profile."""
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
        reads_scalar = any(o.kind == "scalar" for o in op.spec.operands)
        scalars: list[float | int] = special_scalars(op, d) if scalar_cases or reads_scalar else [0]
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


def case_inputs(
    gx: GoldenContext, data: Path, k: int, predicate: np.ndarray, value: float | int
) -> dict[str, np.ndarray]:
    """The inputs of case k, written where its kernel reads them (`c<k>_<operand>.bin`): each
    source register random with the element type's special values first, a scalar operand as
    `value`, the predicate as the case's pattern and any other mask (a carry-in) random bits."""
    op = gx.op
    storage = gx.np_type(gx.vector.dtype)
    lanes = gx.vector.lanes
    seed = f"{gx.op_name}/{gx.entry.group}/{k}"
    vals: dict[str, np.ndarray] = {}
    for name, kind in op.operands.items():
        if op.roles[name] == "dst":
            continue
        if kind == "vreg":
            vals[name] = inputs(storage, lanes, f"{seed}/{name}")
            vals[name].tofile(data / f"c{k}_{name}.bin")
        elif kind == "scalar":
            s = np.array([value], dtype=np.float64 if is_float(storage) else np.int64).astype(storage)
            s.tofile(data / f"c{k}_{name}.bin")
            vals[name] = s.reshape(())
        elif kind == "mask":
            bits = (
                predicate
                if op.roles[name] == "mask"
                else random_values(np.dtype(np.uint8), lanes, f"{seed}/{name}") % 2 == 1
            )
            bits.astype(np.uint8).tofile(data / f"c{k}_{name}.bin")
            vals[name] = bits.astype(np.uint8)
    return vals


def result_before(gx: GoldenContext, data: Path, k: int, out: str, out_type: np.dtype) -> np.ndarray:
    """What result `out` of case k holds before the call (its own random register, or random flags
    for a predicate result), written where the kernel reads it: what a merging case keeps."""
    seed = f"{gx.op_name}/{gx.entry.group}/{k}"
    before = random_values(out_type, gx.vector.lanes, f"{seed}/{out}/before")
    if gx.op.operands[out] != "vreg":
        before = (before % 2).astype(np.uint8)
    before.tofile(data / f"c{k}_{out}.bin")
    return before


def judge(gx: GoldenContext, k: int, wants: dict[str, tuple[np.ndarray, np.dtype]], label: str) -> Check:
    """The check of case k: each result's bytes (`c<k>_<out>.out`) against its wanted lanes."""

    def check(data_dir: Path) -> Outcome:
        for out, (want, out_type) in wants.items():
            got = np.fromfile(data_dir / f"c{k}_{out}.out", dtype=out_type)
            bad = compare(got, want, gx.op.tolerance)
            if bad.any():
                return Outcome("fail", label, describe_mismatch(bad, got, want, f"{out} lane"))
        return Outcome("pass", label)

    return check


__all__ = [
    "MASKS",
    "VECTOR_BYTES",
    "VECTOR_MASKS",
    "case_inputs",
    "judge",
    "mask_pattern",
    "plan_vector",
    "result_before",
]
