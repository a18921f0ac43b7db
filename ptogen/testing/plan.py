"""Plan the generated tests of every op: runtime kernels with golden data, compile-fail kernels
(one per static rule per profile, like LLVM -verify tests) with their legal twins, and
runtime-fail kernels (one per run-time rule).

The plan is pure data; templates under templates/tests/ spell the kernels and the manifest the
runner reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import GenerationError
from ..lower.views import OpView, ProjectView, RuleView
from ..spec.model import DTypeDef

# Shapes that matter: full, partial static valid region, non-square and not a power of two,
# valid region given at run time. (rows, cols, valid_rows, valid_cols, dynamic)
ROW_MAJOR_SHAPES = [
    ("full 16x16", 16, 16, 16, 16, False),
    ("partial valid 13x7 of 16x16", 16, 16, 13, 7, False),
    ("non-square 6x40", 6, 40, 6, 40, False),
    ("run-time valid 11x19 of 16x32", 16, 32, 11, 19, True),
    ("odd 3x5 valid 2x3", 3, 5, 2, 3, False),
]
COL_MAJOR_SHAPES = [
    ("col-major 12x20 valid 9x15", 12, 20, 9, 15, False),
    ("col-major run-time valid 5x6 of 8x8", 8, 8, 5, 6, True),
]
VECTOR_BYTES = 256  # register width of the vector model: N = 256 / sizeof(T)


@dataclass(frozen=True)
class TileDecl:
    name: str
    dtype: str
    rows: int = 16
    cols: int = 16
    valid_rows: int = 16
    valid_cols: int = 16
    dynamic: bool = False
    loc: str = "Vec"
    layout: str = "RowMajor"

    @property
    def type_name(self) -> str:
        return f"Tile_{self.name}"


@dataclass
class Call:
    """How a kernel calls the intrinsic."""

    template_args: list[str]
    args: list[str]


@dataclass
class CompileCase:
    path: str
    profile: str
    rv: RuleView | None  # None: the legal twin, which must compile
    rule: str
    tiles: list[TileDecl]
    call: Call
    note: str = ""


@dataclass
class RuntimeCase:
    index: int
    label: str
    tiles: list[TileDecl]
    scalars: dict[str, float | int]
    call: Call
    addresses: dict[str, int] = field(default_factory=dict)
    attrs: dict[str, str] = field(default_factory=dict)


@dataclass
class RuntimeKernel:
    path: str
    dtypes: dict[str, str]  # tile or scalar operand -> element type
    variant: dict[str, str]
    profiles: list[str]
    cases: list[RuntimeCase]


@dataclass
class RuntimeFailCase:
    path: str
    profile: str
    rv: RuleView
    rule: str
    tiles: list[TileDecl]
    call: Call
    addresses: dict[str, int]


@dataclass
class VectorKernel:
    path: str
    dtype: str
    lanes: int
    profiles: list[str]
    masks: list[str]  # labels of the mask patterns, in case order
    scalars: list[float | int]


@dataclass
class OpTests:
    op: OpView
    runtime: list[RuntimeKernel] = field(default_factory=list)
    vector: list[VectorKernel] = field(default_factory=list)
    compile: list[CompileCase] = field(default_factory=list)
    runtime_fail: list[RuntimeFailCase] = field(default_factory=list)

    @property
    def dir(self) -> str:
        return f"tests/{self.op.spec.short}"


# ----------------------------------------------------------------------------- helpers


def _dtype(project: ProjectView, name: str) -> DTypeDef:
    return project.targets.dtype(name)


def special_scalars(op: OpView, d: DTypeDef) -> list[float | int]:
    tv = op.spec.test_values
    if d.kind == "float":
        return list(tv.float_scalars)
    lo, hi = (0, (1 << d.bits) - 1) if d.kind == "uint" else (-(1 << (d.bits - 1)), (1 << (d.bits - 1)) - 1)
    return [v for v in tv.int_scalars if lo <= v <= hi]


def _call(
    op: OpView,
    tiles: dict[str, TileDecl],
    variant: dict[str, str],
    scalar_expr: dict[str, str],
    with_tmp: bool = True,
    attrs: dict[str, str] | None = None,
) -> Call:
    attrs = attrs or {}
    intr = op.spec.intrinsic
    assert intr is not None
    explicit: list[str] = []
    seen_type = False
    for t in intr.template:
        if t.kind != "value":
            seen_type = True
            continue
        value = variant.get(t.name, t.default)
        if value != t.default:
            if seen_type:
                raise GenerationError(
                    f"{op.path}: cannot test value parameter {t.name} after type parameters"
                )
            explicit.append(str(value))
    args: list[str] = []
    for p in intr.params:
        if p.events:
            if intr.tmp_in_events and with_tmp:
                args.append(intr.tmp_in_events)
        elif p.type is not None:
            args.append(str(p.operand))
        elif p.attr is not None:
            args.append(f"{p.attr}::{attrs.get(str(p.operand)) or _first_value(op, p.attr)}")
        else:
            args.append(scalar_expr[str(p.operand)])
    return Call(explicit, args)


def _first_value(op: OpView, enum: str) -> str:
    return next(e.values[0] for e in op.targets.enums if e.name == enum)


def _scalar_default(op: OpView, tiles: dict[str, TileDecl]) -> dict[str, str]:
    """Scalar arguments spelled as a value-initialised element of the type the signature names."""
    intr = op.spec.intrinsic
    assert intr is not None
    out = {}
    for p in intr.params:
        if p.dtype_of is not None:
            owner = next(q.operand for q in intr.params if q.type == p.dtype_of)
            out[str(p.operand)] = f"{tiles[str(owner)].type_name}::DType{{}}"
        elif p.value_type is not None:
            out[str(p.operand)] = f"{tiles[op.compute_operand].type_name}::DType{{}}"
    return out


def _tile_operands(op: OpView) -> list[str]:
    return [o.name for o in op.spec.operands if o.kind == "tile"]


def _legal_tiles(op: OpView, profile: str, variant: dict[str, str]) -> dict[str, TileDecl] | None:
    combos = op.dtype_combos(profile, variant)
    if not combos:
        return None
    return {name: TileDecl(name, combos[0][name]) for name in _tile_operands(op)}


def _scalar_dtypes(op: OpView, dtypes: dict[str, str]) -> dict[str, str]:
    """Element type of each scalar operand: that of the tile its `typename T::DType` names."""
    out: dict[str, str] = {}
    intr = op.spec.intrinsic
    if intr is None:
        return out
    for p in intr.params:
        if p.dtype_of is not None:
            owner = next(q.operand for q in intr.params if q.type == p.dtype_of)
            out[str(p.operand)] = dtypes[str(owner)]
        elif p.value_type is not None:
            out[str(p.operand)] = dtypes[op.compute_operand]
    return out


def _other_dtype(project: ProjectView, avoid: list[str], prefer: list[str]) -> str:
    for d in prefer:
        if d not in avoid:
            return d
    for entry in project.targets.dtypes:
        if entry.name not in avoid:
            return entry.name
    raise GenerationError("the dtype vocabulary has no type outside a rule's list")


def _break(
    project: ProjectView, op: OpView, rv: RuleView, tiles: dict[str, TileDecl], profile: str
) -> tuple[dict[str, TileDecl], bool]:
    """Tiles that violate exactly `rv` (as far as the other rules allow); returns (tiles, with_tmp)."""
    r = rv.rule
    out = dict(tiles)
    first = r.operands[0] if r.operands else ""
    if r.kind == "dtype":
        # int32_t first: the classic illegal use of a float-only op (TLRELU on int32_t under A5).
        bad = _other_dtype(
            project,
            rv.dtypes_cpp,
            ["int32_t", "int16_t", "int8_t", "uint32_t", "uint8_t", "float", "half", "bfloat16_t"],
        )
        # Operands that share the rule's type (named by it, or following the compute operand) change together.
        follow = set(r.operands)
        if op.compute_operand in follow:
            follow |= {n for n in out if op.operand_dtypes(profile, n) is None}
        out = {n: (replace(t, dtype=bad) if n in follow else t) for n, t in out.items()}
    elif r.kind == "row_major":
        out[first] = replace(out[first], layout="ColMajor")
    elif r.kind == "location":
        out[first] = replace(out[first], loc="Mat" if r.location != "Mat" else "Vec")
    elif r.kind == "valid_bounds":
        t = out[first]
        out[first] = replace(t, valid_rows=t.rows + 1)
    elif r.kind == "same_dtype" and op.spec.operand(r.operands[1]).kind == "scalar":
        return out, True  # the kernel passes a scalar of another type: see _scalar_override
    elif r.kind == "same_dtype":
        second = r.operands[1]
        current = out[second].dtype
        allowed = op.operand_dtypes(profile, second) or op.allowed_dtypes(profile, None)
        out[second] = replace(out[second], dtype=_other_dtype(project, [current], allowed))
    elif r.kind == "tmp_required":
        return out, False
    return _share_types(op, out, first if r.kind != "same_dtype" else r.operands[1]), True


def _scalar_override(op: OpView, rv: RuleView, tiles: dict[str, TileDecl]) -> dict[str, str]:
    """A scalar of a type other than its tile's, for same_dtype rules over a deduced scalar type."""
    r = rv.rule
    if r.kind != "same_dtype" or op.spec.operand(r.operands[1]).kind != "scalar":
        return {}
    first = tiles[r.operands[0]].dtype
    return {r.operands[1]: "int64_t{}" if first != "int64_t" else "double{}"}


def _share_types(op: OpView, tiles: dict[str, TileDecl], changed: str | None) -> dict[str, TileDecl]:
    """Operands bound to one template parameter (TPRELU's TileData) must stay one type."""
    if changed is None or op.spec.intrinsic is None:
        return tiles
    by_type = {p.operand: p.type for p in op.spec.intrinsic.params if p.operand}
    out = dict(tiles)
    for name in tiles:
        if name != changed and by_type.get(name) is not None and by_type.get(name) == by_type.get(changed):
            out[name] = replace(tiles[changed], name=name)
    return out


def _variant_for(op: OpView, rv: RuleView) -> dict[str, str]:
    w = rv.rule.when
    return {**op.default_values, w.param: w.equals} if w else dict(op.default_values)


def _layout_addresses(project: ProjectView, tiles: list[TileDecl]) -> dict[str, int]:
    """Consecutive, 64-byte aligned TASSIGN addresses in the simulated buffer."""
    addr, out = 0, {}
    for t in tiles:
        out[t.name] = addr
        size = t.rows * t.cols * _dtype(project, t.dtype).bits // 8
        addr += (size + 63) // 64 * 64
    return out


# ----------------------------------------------------------------------------- planning


def plan_op(project: ProjectView, op: OpView) -> OpTests:
    tests = OpTests(op)
    if op.is_vector:
        _plan_vector(project, op, tests)
        return tests
    _plan_runtime(project, op, tests)
    _plan_compile(project, op, tests)
    _plan_runtime_fail(project, op, tests)
    return tests


def _variant_suffix(op: OpView, variant: dict[str, str]) -> str:
    diff = [v.split("::")[-1].lower() for k, v in variant.items() if op.default_values.get(k) != v]
    return "_" + "_".join(diff) if diff else ""


def _plan_runtime(project: ProjectView, op: OpView, tests: OpTests) -> None:
    profiles = [p.name for p in project.profiles]
    order = [d.name for d in project.targets.dtypes]
    for variant in op.value_variants:
        combos: list[dict[str, str]] = []
        for p in profiles:
            combos += [c for c in op.dtype_combos(p, variant) if c not in combos]
        combos.sort(key=lambda c: [order.index(c[op.compute_operand])] + [order.index(v) for v in c.values()])
        col_kinds: set[str] = set()
        for combo in combos:
            on = [p for p in profiles if combo in op.dtype_combos(p, variant)]
            # Column-major addressing does not depend on the element type: one float and one
            # integer combination per op prove it; every combination is proven row-major.
            kind = "float" if _dtype(project, combo[op.compute_operand]).kind == "float" else "int"
            for layout, shapes in (("RowMajor", ROW_MAJOR_SHAPES), ("ColMajor", COL_MAJOR_SHAPES)):
                ok = [
                    p
                    for p in on
                    if layout == "RowMajor" or not any(rv.kind == "row_major" for rv in op.rules_for(p))
                ]
                if not ok or (layout == "ColMajor" and kind in col_kinds):
                    continue
                if layout == "ColMajor":
                    col_kinds.add(kind)
                dtypes = {**combo, **_scalar_dtypes(op, combo)}
                cases = _runtime_cases(project, op, dtypes, variant, layout, shapes)
                names = [combo[op.compute_operand]] + [
                    d for d in combo.values() if d != combo[op.compute_operand]
                ]
                stem = "_".join(dict.fromkeys(names))
                suffix = _variant_suffix(op, variant) + ("_colmajor" if layout == "ColMajor" else "")
                name = f"run_{stem}{suffix}.cpp"
                tests.runtime.append(RuntimeKernel(f"{tests.dir}/{name}", dtypes, variant, ok, cases))


def _runtime_cases(
    project: ProjectView,
    op: OpView,
    dtypes: dict[str, str],
    variant: dict[str, str],
    layout: str,
    shapes: list[tuple[str, int, int, int, int, bool]],
) -> list[RuntimeCase]:
    scalars = [o.name for o in op.spec.operands if o.kind == "scalar"]
    attrs = {o.name: str(o.enum) for o in op.spec.operands if o.kind == "attr"}
    values = {e.name: e.values for e in project.targets.enums}
    scalar_type = (
        dtypes.get(scalars[0], dtypes[op.compute_operand]) if scalars else dtypes[op.compute_operand]
    )
    specials = special_scalars(op, _dtype(project, scalar_type))
    typical = specials[-1] if specials else 0
    first = {a: values[e][0] for a, e in attrs.items()}
    plan: list[tuple[str, tuple[str, int, int, int, int, bool], float | int, dict[str, str]]] = []
    for label, *shape in shapes:
        plan.append((label, (label, *shape), typical, first))  # type: ignore[arg-type]
    if layout == "RowMajor":
        for value in specials[:-1]:
            plan.append((f"full 16x16, scalar {value}", ROW_MAJOR_SHAPES[0], value, first))
        for a, e in attrs.items():
            for v in values[e][1:]:
                plan.append((f"full 16x16, {a} {v}", ROW_MAJOR_SHAPES[0], typical, {**first, a: v}))
    cases = []
    for index, (label, (_, rows, cols, vr, vc, dyn), value, attr_values) in enumerate(plan):
        tiles = {
            n: TileDecl(n, dtypes[n], rows, cols, vr, vc, dyn, "Vec", layout) for n in _tile_operands(op)
        }
        scalar_values = dict.fromkeys(scalars, value)
        call = _call(op, tiles, variant, {s: f"{s}_value" for s in scalars}, attrs=attr_values)
        decls = list(tiles.values())
        cases.append(
            RuntimeCase(
                index, label, decls, scalar_values, call, _layout_addresses(project, decls), dict(attr_values)
            )
        )
    return cases


def _plan_compile(project: ProjectView, op: OpView, tests: OpTests) -> None:
    twins: dict[tuple[str, str], CompileCase] = {}

    def twin(profile: str, variant: dict[str, str]) -> CompileCase | None:
        key = (profile, _variant_suffix(op, variant))
        if key not in twins:
            tiles = _legal_tiles(op, profile, variant)
            if tiles is None:
                return None
            call = _call(op, tiles, variant, _scalar_default(op, tiles))
            path = f"{tests.dir}/legal_{profile.lower()}{key[1]}.cpp"
            twins[key] = CompileCase(
                path,
                profile,
                None,
                "legal",
                list(tiles.values()),
                call,
                "legal twin: every rule of the profile holds",
            )
            tests.compile.append(twins[key])
        return twins[key]

    for p in project.profiles:
        for variant in op.value_variants:
            twin(p.name, variant)
    for p in project.profiles:
        for rv in op.rules_for(p.name, static=True):
            variant = _variant_for(op, rv)
            if rv.kind == "unavailable":
                donor = next((twin(q.name, variant) for q in project.profiles if op.available(q.name)), None)
                if donor is None:
                    raise GenerationError(
                        f"{op.path}: no profile offers the op, so nothing proves it compiles"
                    )
                tiles = {t.name: t for t in donor.tiles}
            else:
                legal = twin(p.name, variant)
                if legal is None:
                    continue
                tiles = {t.name: t for t in legal.tiles}
            broken, with_tmp = _break(project, op, rv, tiles, p.name)
            scalars = {**_scalar_default(op, broken), **_scalar_override(op, rv, broken)}
            call = _call(op, broken, variant, scalars, with_tmp=with_tmp)
            path = f"{tests.dir}/fail_{p.name.lower()}_{rv.id}.cpp"
            tests.compile.append(
                CompileCase(
                    path,
                    p.name,
                    rv,
                    rv.id,
                    list(broken.values()),
                    call,
                    f"breaks rule {rv.id} ({rv.kind}) of the {p.name} profile",
                )
            )


def _plan_runtime_fail(project: ProjectView, op: OpView, tests: OpTests) -> None:
    for p in project.profiles:
        for rv in op.rules_for(p.name, static=False):
            variant = dict(op.default_values)
            tiles = _legal_tiles(op, p.name, variant)
            if tiles is None:
                continue
            first, second = rv.rule.operands[0], rv.rule.operands[1]
            tiles = {
                n: replace(t, rows=8, cols=8, valid_rows=8, valid_cols=8, dynamic=True)
                for n, t in tiles.items()
            }
            addresses = _layout_addresses(project, list(tiles.values()))
            if rv.kind == "same_valid_shape":
                tiles[second] = replace(tiles[second], valid_cols=7)  # dynamic: same C++ type, other shape
            elif rv.kind == "no_overlap":
                addresses[first] = addresses[second]
            call = _call(op, tiles, variant, _scalar_default(op, tiles))
            path = f"{tests.dir}/runfail_{p.name.lower()}_{rv.id}.cpp"
            tests.runtime_fail.append(
                RuntimeFailCase(path, p.name, rv, rv.id, list(tiles.values()), call, addresses)
            )


VECTOR_MASKS = ["all lanes", "first 5 lanes", "alternate lanes", "no lanes"]


def _plan_vector(project: ProjectView, op: OpView, tests: OpTests) -> None:
    profiles = [p.name for p in project.profiles]
    order = [d.name for d in project.targets.dtypes]
    dtypes: list[str] = []
    for p in profiles:
        dtypes += [d for d in op.allowed_dtypes(p) if d not in dtypes]
    for dtype in sorted(dtypes, key=order.index):
        d = _dtype(project, dtype)
        on = [p for p in profiles if dtype in op.allowed_dtypes(p)]
        tests.vector.append(
            VectorKernel(
                f"{tests.dir}/run_{dtype}.cpp",
                dtype,
                VECTOR_BYTES * 8 // d.bits,
                on,
                VECTOR_MASKS,
                special_scalars(op, d),
            )
        )
    for p in profiles:
        for rv in op.rules_for(p, static=True):
            if rv.kind != "dtype":
                continue
            bad = _other_dtype(project, rv.dtypes_cpp, ["int32_t", "int16_t", "float", "half"])
            ok = op.allowed_dtypes(p)
            tests.compile.append(
                CompileCase(
                    f"{tests.dir}/fail_{p.lower()}_{rv.id}.cpp",
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
                        f"{tests.dir}/legal_{p.lower()}.cpp",
                        p,
                        None,
                        "legal",
                        [TileDecl("input", ok[0])],
                        Call([], []),
                        "legal twin",
                    )
                )


# ----------------------------------------------------------------------------- output jobs


def manifest(project: ProjectView, plans: list[OpTests]) -> dict[str, Any]:
    """What the runner needs to build inputs, run kernels and judge results."""
    ops: dict[str, Any] = {}
    for t in plans:
        op = t.op
        tol = op.spec.semantics.tolerance
        ops[op.spec.short] = {
            "mnemonic": op.spec.mnemonic,
            "cpp": op.name,
            "spec": op.path,
            "kind": "vector" if op.is_vector else "tile",
            "reference": f"{t.dir}/reference.py",
            "tolerance": {"kind": tol.kind, "ulp": getattr(tol, "ulp", 0)},
            "domain": op.spec.semantics.domain,
            "compute": op.compute_operand,
            "inputs": [o.name for o in op.spec.operands if o.name in op.value_operands],
            "operands": {o.name: o.kind for o in op.spec.operands},
            "roles": {o.name: o.role for o in op.spec.operands},
            "outputs": [o["name"] for o in op.vector_outputs] if op.is_vector else [op.spec.semantics.domain],
            "inactive_lanes": op.spec.semantics.inactive_lanes,
            "runtime": [
                {
                    "kernel": k.path,
                    "dtypes": k.dtypes,
                    "profiles": k.profiles,
                    "cases": [
                        {
                            "index": c.index,
                            "label": c.label,
                            "scalars": c.scalars,
                            "attrs": c.attrs,
                            "tiles": {
                                x.name: {
                                    "rows": x.rows,
                                    "cols": x.cols,
                                    "valid_rows": x.valid_rows,
                                    "valid_cols": x.valid_cols,
                                    "layout": x.layout,
                                }
                                for x in c.tiles
                            },
                        }
                        for c in k.cases
                    ],
                }
                for k in t.runtime
            ],
            "vector": [
                {
                    "kernel": k.path,
                    "dtype": k.dtype,
                    "lanes": k.lanes,
                    "profiles": k.profiles,
                    "masks": k.masks,
                    "scalars": k.scalars,
                }
                for k in t.vector
            ],
            # The expected diagnostic lives in each kernel's `// expected-error:` line (as in LLVM -verify).
            "compile": [
                {"kernel": c.path, "profile": c.profile, "rule": c.rule, "must_fail": c.rv is not None}
                for c in t.compile
            ],
            "runtime_fail": [
                {"kernel": c.path, "profile": c.profile, "rule": c.rule} for c in t.runtime_fail
            ],
        }
    dtypes = {d.name: {"numpy": d.numpy, "kind": d.kind, "bits": d.bits} for d in project.targets.dtypes}
    return {"profiles": [p.name for p in project.profiles], "dtypes": dtypes, "ops": ops}


def test_jobs(project: ProjectView) -> list[tuple[str, str, dict[str, object]]]:
    plans = [plan_op(project, op) for op in project.ops]
    jobs: list[tuple[str, str, dict[str, object]]] = []
    for t in plans:
        op = t.op
        jobs.append((f"{t.dir}/reference.py", "tests/reference.py.j2", {"op": op}))
        for k in t.runtime:
            jobs.append((k.path, "tests/runtime_kernel.cpp.j2", {"op": op, "kernel": k}))
        for v in t.vector:
            jobs.append((v.path, "tests/vector_kernel.cpp.j2", {"op": op, "kernel": v}))
        for c in t.compile:
            jobs.append((c.path, "tests/compile_kernel.cpp.j2", {"op": op, "case": c}))
        for f in t.runtime_fail:
            jobs.append((f.path, "tests/runtime_fail_kernel.cpp.j2", {"op": op, "case": f}))
    jobs.append(
        ("tests/manifest.json", "tests/manifest.json.j2", {"plans": plans, "build_manifest": manifest})
    )
    return jobs
