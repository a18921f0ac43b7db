"""Plan the generated tests of every op: runtime kernels with golden data, compile-fail kernels
(one per static rule per profile, like LLVM -verify tests) with their legal twins, and
runtime-fail kernels (one per run-time rule).

The plan is pure data; templates under templates/tests/ spell the kernels and the manifest the
runner reads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..errors import GenerationError
from ..rule_api import TileDecl
from ..rules import Broken
from ..rules.parts import (
    RuntimeCheck,
    StaticBreak,
    TileFilter,
    TypeFilter,
    in_form,
    is_static,
    not_offered,
    part,
    when_values,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterator

    from ..kind_api import FormViewAPI, OpViewAPI, ProjectViewAPI, RuleViewAPI
from ..spec.model import DTypeDef
from .manifest import (
    CaseEntry,
    CompileEntry,
    DTypeInfo,
    GlobalShape,
    OpManifest,
    ProjectManifest,
    RuntimeFailEntry,
    RuntimeGroup,
    TileShape,
    Tolerance,
    ValueForm,
    VectorGroup,
)


def global_type_name(name: str) -> str:
    """The C++ type name a test kernel declares for a GlobalTensor operand."""
    return f"Global_{name}"


@dataclass(frozen=True)
class GlobalDecl:
    """A GlobalTensor operand over a host buffer, seen as a rows x cols matrix: rows contiguous (ND,
    `ld` elements apart), columns contiguous (DN, `ld` elements apart), or fractal (NZ: column
    blocks of `block` elements, each a run of rows x `block` contiguous elements, 16 rows to a
    fractal)."""

    name: str
    dtype: str
    rows: int
    cols: int
    ld: int
    layout: str = "ND"  # "ND", "DN" or "NZ"
    dynamic: bool = False  # extents and leading stride given at run time
    block: int = 0  # NZ: elements of one block row (32 bytes)
    # A conv layout's tensor (NC1HWC0, ...): its five extents and strides as stated, and the buffer's
    # elements (rows x cols is then the ConvTile's matrix).
    dims: tuple[tuple[int, ...], tuple[int, ...], int] | None = None

    @property
    def type_name(self) -> str:
        return global_type_name(self.name)

    @property
    def shape(self) -> list[int]:
        """Extents of dimensions 0..4."""
        if self.dims is not None:
            return list(self.dims[0])
        if self.layout == "NZ":
            return [1, self.cols // self.block, self.rows // 16, 16, self.block]
        return [1, 1, 1, self.rows, self.cols]

    @property
    def strides(self) -> list[int]:
        """Element strides of dimensions 0..4 (the outer three span the whole buffer)."""
        if self.dims is not None:
            return list(self.dims[1])
        if self.layout == "NZ":
            return [self.size, self.rows * self.block, 16 * self.block, self.block, 1]
        inner = [self.ld, 1] if self.layout == "ND" else [1, self.ld]
        return [self.size] * 3 + inner

    @property
    def size(self) -> int:
        """Elements of the host buffer."""
        if self.dims is not None:
            return self.dims[2]
        if self.layout == "NZ":
            return self.rows * self.cols
        return self.ld * (self.rows if self.layout == "ND" else self.cols)


def global_decls(
    op: OpViewAPI,
    tiles: dict[str, TileDecl],
    layouts: dict[str, str] | None = None,
    dtypes: dict[str, str] | None = None,
) -> list[GlobalDecl]:
    """GlobalTensor operands of a call, typed like the compute tile (unless `dtypes` names another
    element type for an operand) and shaped like its valid region (ND unless `layouts` names
    another layout for an operand)."""
    t = tiles.get(op.compute_operand) or next(iter(tiles.values()))
    out = []
    for o in op.spec.operands:
        if o.kind == "global":
            layout = (layouts or {}).get(o.name, "ND")
            ld = t.valid_rows if layout == "DN" else t.valid_cols
            dtype = (dtypes or {}).get(o.name, t.dtype)
            out.append(GlobalDecl(o.name, dtype, t.valid_rows, t.valid_cols, ld, layout))
    return out


@dataclass
class Call:
    """How a kernel calls the intrinsic."""

    template_args: list[str]
    args: list[str]


@dataclass
class CompileCase:
    fn: str  # the function of the profile's verify file that holds the case
    profile: str
    rv: RuleViewAPI | None  # None: the legal twin, which must compile
    rule: str
    tiles: list[TileDecl]
    call: Call
    note: str = ""
    # Rules the kernel cannot help breaking too (same_dtype on a one-type profile must pick a type
    # the dtype rule rejects); their diagnostics are expected as well.
    also: list[RuleViewAPI] = field(default_factory=list)
    globals: list[GlobalDecl] = field(default_factory=list)  # GlobalTensor operands (transfer ops)
    contexts: list[tuple[str, str]] = field(default_factory=list)  # (C++ type, name) of context operands
    # Statements compiled in place of a call: an IR form's C++ spelling, which is no function.
    statements: list[str] = field(default_factory=list)

    def messages(self) -> list[str]:
        # A rule asserted piece by piece (a shape rule's relations) expects the pieces these tiles break.
        # A declaration's own tiles (`src1_f1`) stand for its operands (`src1`).
        tiles = {t.name: t for t in self.tiles}
        tiles |= {re.sub(r"_f\d+$", "", t.name): t for t in self.tiles}
        rules = ([self.rv] if self.rv else []) + self.also
        return [m for rv in rules for m in rv.broken_messages(self.profile, tiles)]

    @classmethod
    def legal(
        cls,
        fn: str,
        profile: str,
        tiles: list[TileDecl],
        call: Call,
        *,
        globals: list[GlobalDecl] | None = None,
        contexts: list[tuple[str, str]] | None = None,
        of: str = "",
    ) -> CompileCase:
        """A call every rule of the profile admits (`of`: which declaration, when not the main one)."""
        note = f"legal twin{of}: every rule of the profile holds"
        return cls(
            fn, profile, None, "legal", tiles, call, note, globals=globals or [], contexts=contexts or []
        )

    @classmethod
    def breaking(
        cls,
        fn: str,
        profile: str,
        rv: RuleViewAPI,
        tiles: list[TileDecl],
        call: Call,
        *,
        also: list[RuleViewAPI] | None = None,
        globals: list[GlobalDecl] | None = None,
        contexts: list[tuple[str, str]] | None = None,
        on: str = "",
    ) -> CompileCase:
        """A call that breaks one rule of the profile (`on`: which declaration, when it matters)."""
        note = f"breaks rule {rv.id} ({rv.kind}) of the {profile} profile{on}"
        return cls(
            fn,
            profile,
            rv,
            rv.id,
            tiles,
            call,
            note,
            also or [],
            globals=globals or [],
            contexts=contexts or [],
        )


# A file a runtime case's kernel loads or stores besides its tiles, globals and scalars: (file name,
# C++ pointer to the data, element count).
DataFile = tuple[str, str, int]


@dataclass
class FormRun:
    """A further declaration the first case of a runtime kernel also calls and judges, and those of
    the kernel's profiles under which it does (the others leave the form to its compile cases)."""

    form: FormViewAPI
    profiles: list[str]


@dataclass
class RuntimeCase:
    index: int
    label: str
    tiles: list[TileDecl]
    scalars: dict[str, float | int]
    call: Call
    addresses: dict[str, int] = field(default_factory=dict)
    attrs: dict[str, str] = field(default_factory=dict)
    globals: list[GlobalDecl] = field(default_factory=list)  # GlobalTensor operands (transfer ops)
    contexts: list[tuple[str, str]] = field(default_factory=list)  # (C++ type, name) of context operands
    # What the kind's planner adds around the call: inputs loaded before it (TRANDOM's key and
    # counter), C++ statements just before and after it (TPRINT captures standard output), results
    # stored after it besides the domain operand (the golden judges them).
    loaded: list[DataFile] = field(default_factory=list)
    before_call: list[str] = field(default_factory=list)
    after_call: list[str] = field(default_factory=list)
    stored: list[DataFile] = field(default_factory=list)
    # The further declarations this case also calls (a kernel's first case; None: the planner left
    # them to `plan_op`'s default, `form_runs`).
    forms: list[FormRun] | None = None


@dataclass
class RuntimeKernel:
    """Runtime cases sharing element types, template values and layout (one golden group)."""

    id: str
    dtypes: dict[str, str]  # tile or scalar operand -> element type
    variant: dict[str, str]
    profiles: list[str]
    cases: list[RuntimeCase]
    ranges: dict[str, tuple[float, float]] = field(default_factory=dict)  # input data kept within


@dataclass
class RuntimeFailCase:
    id: str  # case id in the profile's cases executable
    profile: str
    rv: RuleViewAPI
    rule: str
    tiles: list[TileDecl]
    call: Call
    addresses: dict[str, int]


@dataclass
class VectorKernel:
    id: str
    first: int  # global id of its first case; masks x scalars cases follow
    dtype: str
    lanes: int
    profiles: list[str]
    masks: list[str]  # labels of the mask patterns, in case order
    scalars: list[float | int]


@dataclass
class OpTests:
    op: OpViewAPI
    runtime: list[RuntimeKernel] = field(default_factory=list)
    vector: list[VectorKernel] = field(default_factory=list)
    compile: list[CompileCase] = field(default_factory=list)
    runtime_fail: list[RuntimeFailCase] = field(default_factory=list)
    # Before each further declaration a case binds its domain tile back to its own bytes instead of
    # reloading them (the op rebinds the tile to other storage: TASSIGN).
    rebinds: bool = False
    # Standard headers the op's kernels include besides the common ones (TPRINT's `<sstream>`).
    includes: list[str] = field(default_factory=list)
    # Headers the op's verify file includes besides the common ones (an IR form's own header), and
    # whether its cases make values they use no further (statements shown alone).
    verify_includes: list[str] = field(default_factory=list)
    values_unused: bool = False

    @property
    def dir(self) -> str:
        return f"tests/{self.op.spec.stem}"

    def executable(self) -> CasesFile | None:
        """The op's one cases executable: every runtime case, instantiated under every profile that
        allows it (building it proves them legal there) and selected by `c<k>@<PROFILE>`, and every
        runtime-fail case, selected by its id."""
        if not (self.runtime or self.vector or self.runtime_fail):
            return None
        return CasesFile(
            f"{self.dir}/cases.cpp", self.runtime, self.vector, self.runtime_fail, self.rebinds, self.includes
        )

    def verify_file(self) -> VerifyFile | None:
        """One translation unit with every compile-fail case of every profile and the legal twins."""
        if not self.compile:
            return None
        return VerifyFile(f"{self.dir}/verify.cpp", self.compile, self.verify_includes, self.values_unused)


@dataclass
class CasesFile:
    path: str
    runtime: list[RuntimeKernel]
    vector: list[VectorKernel]
    runtime_fail: list[RuntimeFailCase]
    rebinds: bool = False  # OpTests.rebinds
    includes: list[str] = field(default_factory=list)  # OpTests.includes


@dataclass
class VerifyFile:
    path: str
    cases: list[CompileCase]
    includes: list[str] = field(default_factory=list)  # OpTests.verify_includes
    values_unused: bool = False  # OpTests.values_unused


# ----------------------------------------------------------------------------- helpers


def dtype_def(project: ProjectViewAPI, name: str) -> DTypeDef:
    return project.targets.dtype(name)


def special_scalars(op: OpViewAPI, d: DTypeDef) -> list[float | int]:
    tv = op.spec.test_values
    if d.kind == "float":
        return list(tv.float_scalars)
    lo, hi = (0, (1 << d.bits) - 1) if d.kind == "uint" else (-(1 << (d.bits - 1)), (1 << (d.bits - 1)) - 1)
    return [v for v in tv.int_scalars if lo <= v <= hi]


def make_call(
    op: OpViewAPI,
    tiles: dict[str, TileDecl],
    variant: dict[str, str],
    scalar_expr: dict[str, str],
    with_tmp: bool = True,
    attrs: dict[str, str] | None = None,
) -> Call:
    attrs = attrs or {}
    intr = op.spec.intrinsic
    assert intr is not None
    own = op.kind.test_call(op, tiles, variant, scalar_expr)
    if own is not None:
        return Call(*own)
    explicit: list[str] = []
    spelled: list[str] = []  # every template argument so far, a type by its operand's declaration
    seen_type = False
    for t in intr.template:
        if t.kind == "pack":
            continue
        if t.kind != "value":
            seen_type = True
            holder = next((p for p in intr.params if p.type == t.name and not p.events), None)
            name = str(holder.operand) if holder is not None else ""
            spelled.append(tiles[name].type_name if name in tiles else global_type_name(name))
            continue
        value = variant.get(t.name, t.default)
        if value is None and any(e.name == str(t.type) for e in op.targets.enums):
            value = f"{t.type}::{_first_value(op, str(t.type))}"  # no default (THISTOGRAM's HistByte)
        spelled.append(str(value))
        if value != t.default:
            if seen_type and intr.overloads:  # overloads share the main form's explicit values
                raise GenerationError(
                    f"{op.path}: cannot test value parameter {t.name} after type parameters"
                )
            # a value after type parameters (TSTORE_FP's reluPreMode): the types are spelled too
            explicit = list(spelled) if seen_type else [*explicit, str(value)]
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


def _first_value(op: OpViewAPI, enum: str) -> str:
    return next(e.values[0] for e in op.targets.enums if e.name == enum)


def _scalar_default(op: OpViewAPI, tiles: dict[str, TileDecl]) -> dict[str, str]:
    """Scalar arguments spelled as a value-initialised element of the type the signature names."""
    intr = op.spec.intrinsic
    assert intr is not None
    out = {}
    for p in intr.params:
        if p.dtype_of is not None:
            owner = next(q.operand for q in intr.params if q.type == p.dtype_of)
            out[str(p.operand)] = f"{tiles[str(owner)].type_name}::DType{{}}"
        elif p.value_type is not None and p.value_type not in {t.name for t in intr.template}:
            out[str(p.operand)] = f"{p.value_type}{{}}"  # a C++ type such as uint32_t (TMRGSORT's blockLen)
        elif p.value_type is not None:
            owner = op.compute_operand if op.compute_operand in tiles else op.domain  # a scalar may set it
            stated = stated_scalar_dtype(op, p.value_type)
            out[str(p.operand)] = f"{stated or tiles[owner].type_name + '::DType'}{{}}"
    return out


def stated_scalar_dtype(op: OpViewAPI, value_type: str) -> str | None:
    """The element type a by-value scalar parameter names (`float deqScale`), None for another
    type (a template parameter, an address type)."""
    return op.targets.dtype(value_type).name if op.targets.has_dtype(value_type) else None


def tile_operands(op: OpViewAPI) -> list[str]:
    return [o.name for o in op.spec.operands if o.kind == "tile"]


def _legal_tiles(
    op: OpViewAPI, profile: str, variant: dict[str, str], want: dict[str, list[str]] | None = None
) -> dict[str, TileDecl] | None:
    """Tiles of the first dtype combination the profile allows (whose operands named in `want`
    have one of the element types listed there)."""
    combos = [
        c
        for c in op.test_combos(profile, variant)
        if all(not types or c[n] in types for n, types in (want or {}).items())
    ]
    if not combos:
        return None
    return {name: shaped(op, TileDecl(name, combos[0][name])) for name in tile_operands(op)}


def legalised(op: OpViewAPI, tiles: dict[str, TileDecl]) -> dict[str, TileDecl]:
    """Tiles that satisfy every run-time rule of every profile (each rule adjusts what it needs)."""
    for rule in op.spec.constraints:
        if not is_static(rule):
            tiles = part(rule, TileFilter).legalise(tiles)
    return tiles


def profile_legalised(op: OpViewAPI, profile: str, tiles: dict[str, TileDecl]) -> dict[str, TileDecl]:
    """`tiles` adjusted to the static rules the profile enforces as well (the box layout a cube
    operand takes there: A2A3's Left tiles are ZZ, A5's NZ)."""
    for rv in op.rules_for(profile, static=True):
        tiles = part(rv.rule, TileFilter).legalise_static(tiles)
    return tiles


def shaped(op: OpViewAPI, tile: TileDecl) -> TileDecl:
    """A tile as the op's kind shapes that operand (a row reduction's dst is R x 1, say), given the
    shape of its source."""
    return op.kind.shaped_tile(op, tile)


def scalar_dtypes(op: OpViewAPI, dtypes: dict[str, str]) -> dict[str, str]:
    """Element type of each scalar operand: that of the tile its `typename T::DType` names, the
    element type a by-value parameter states (TADDDEQRELU's `float deqScale`), else the compute type."""
    out: dict[str, str] = {}
    intr = op.spec.intrinsic
    if intr is None:
        return out
    for p in intr.params:
        if p.dtype_of is not None:
            owner = next(q.operand for q in intr.params if q.type == p.dtype_of)
            out[str(p.operand)] = dtypes[str(owner)]
        elif p.value_type is not None:
            out[str(p.operand)] = stated_scalar_dtype(op, p.value_type) or dtypes[op.compute_operand]
    return out


def other_dtype(project: ProjectViewAPI, avoid: list[str], prefer: list[str]) -> str:
    for d in prefer:
        if d not in avoid:
            return d
    for entry in project.targets.dtypes:
        if entry.name not in avoid:
            return entry.name
    raise GenerationError("the dtype vocabulary has no type outside a rule's list")


@dataclass
class BreakContext:
    """What a rule kind needs to build the kernel that breaks it (ptogen/rules/, `break_static`)."""

    project: ProjectViewAPI
    op: OpViewAPI
    rv: RuleViewAPI
    profile: str

    def other_dtype(self, avoid: list[str], prefer: list[str]) -> str:
        return other_dtype(self.project, avoid, prefer)

    def follow_compute(self, operands: list[str]) -> set[str]:
        """Operands that change type together with `operands`: those the rule names and, when it
        names the compute operand, those no dtype rule names (they follow the compute type)."""
        follow = set(operands)
        if self.op.compute_operand in follow:
            follow |= {n for n in tile_operands(self.op) if self.op.operand_dtypes(self.profile, n) is None}
        return follow


def _break(
    project: ProjectViewAPI, op: OpViewAPI, rv: RuleViewAPI, tiles: dict[str, TileDecl], profile: str
) -> Broken:
    """Tiles that violate exactly `rv` (as far as the other rules allow)."""
    broken = part(rv.rule, StaticBreak).break_static(BreakContext(project, op, rv, profile), tiles)
    broken.tiles = _share_types(op, broken.tiles, broken.changed)
    return broken


def _share_types(op: OpViewAPI, tiles: dict[str, TileDecl], changed: str | None) -> dict[str, TileDecl]:
    """Operands bound to one template parameter (TPRELU's TileData) must stay one type."""
    if changed is None or op.spec.intrinsic is None:
        return tiles
    by_type = {p.operand: p.type for p in op.spec.intrinsic.params if p.operand}
    out = dict(tiles)
    for name in tiles:
        if name != changed and by_type.get(name) is not None and by_type.get(name) == by_type.get(changed):
            out[name] = replace(tiles[changed], name=name)
    return out


def _variant_for(op: OpViewAPI, rv: RuleViewAPI) -> dict[str, str]:
    return {**op.default_values, **when_values(rv.rule)}


def layout_addresses(project: ProjectViewAPI, tiles: list[TileDecl]) -> dict[str, int]:
    """Consecutive, 64-byte aligned TASSIGN addresses in the simulated buffer."""
    addr, out = 0, {}
    for t in tiles:
        out[t.name] = addr
        size = t.rows * t.cols * dtype_def(project, t.dtype).bits // 8
        addr += (size + 63) // 64 * 64
    return out


# ----------------------------------------------------------------------------- planning


def plan_op(project: ProjectViewAPI, op: OpViewAPI) -> OpTests:
    """The op's kind plans its runtime cases and which rule-driven cases apply (opkinds/); each case
    then stores the tiles of the op's further outputs, and the first case of each kernel calls the
    further declarations the planner left to the default (`form_runs`)."""
    tests = OpTests(op)
    op.kind.plan_tests(project, op, tests)
    for case in runtime_cases(tests):
        case.stored += tile_stores(case, op.extra_exprs)
    if not op.kind.facts.plans_forms:
        plan_form_runs(op, tests)
    return tests


def dtype_profiles(project: ProjectViewAPI, op: OpViewAPI) -> list[tuple[str, list[str]]]:
    """Each element type some profile's tests run, in vocabulary order, with those profiles."""
    profiles = [p.name for p in project.profiles]
    order = [d.name for d in project.targets.dtypes]
    dtypes = {d for p in profiles for d in op.test_dtypes(p)}
    return [(d, [p for p in profiles if d in op.test_dtypes(p)]) for d in sorted(dtypes, key=order.index)]


def runtime_cases(tests: OpTests) -> Iterator[RuntimeCase]:
    """Every runtime case planned so far, in order."""
    for kernel in tests.runtime:
        yield from kernel.cases


def tile_stores(case: RuntimeCase, names: Collection[str]) -> list[DataFile]:
    """Stores of the case's tiles named in `names` after the call (whole storage), for the golden."""
    return [
        (f"c{case.index}_{t.name}.out", f"{t.name}.data()", t.rows * t.cols)
        for t in case.tiles
        if t.name in names
    ]


def plan_form_runs(
    op: OpViewAPI,
    tests: OpTests,
    runs: Callable[[FormViewAPI, RuntimeCase], bool] | None = None,
    profiles: Callable[[FormViewAPI, RuntimeCase, list[str]], list[str]] | None = None,
) -> None:
    """The further declarations the first case of each runtime kernel calls, where its planner has
    not said: each form the case `runs` (default: every one) under its `profiles` among the
    kernel's (default: those that check the form by the op's common rules alone,
    `FormView.unchecked_profiles`; its own rules are proved by its compile cases), if any."""
    for kernel in tests.runtime:
        case = kernel.cases[0] if kernel.cases else None
        if case is None or case.forms is not None:
            continue
        case.forms = []
        for form in op.forms[1:]:
            on = (profiles or (lambda f, _, ps: f.unchecked_profiles(ps)))(form, case, kernel.profiles)
            if on and (runs is None or runs(form, case)):
                case.forms.append(FormRun(form, on))


def plan_rule_cases(project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
    """Compile-fail cases (with legal twins) and runtime-fail cases of a tile intrinsic's rules."""
    _plan_compile(project, op, tests)
    _plan_runtime_fail(project, op, tests)


def variant_suffix(op: OpViewAPI, variant: dict[str, str]) -> str:
    diff = [v.split("::")[-1].lower() for k, v in variant.items() if op.default_values.get(k) != v]
    return "_" + "_".join(diff) if diff else ""


def _plan_compile(project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
    twins: dict[tuple[str, str], CompileCase] = {}

    def twin(profile: str, variant: dict[str, str]) -> CompileCase | None:
        key = (profile, variant_suffix(op, variant))
        if key not in twins:
            tiles = _legal_tiles(op, profile, variant)
            if tiles is None:
                return None
            # Valid shapes every run-time rule admits, so that the legal kernel also runs.
            tiles = profile_legalised(op, profile, legalised(op, tiles))
            call = make_call(op, tiles, variant, _scalar_default(op, tiles))
            path = f"legal_{profile.lower()}{key[1]}"
            twins[key] = CompileCase.legal(
                path,
                profile,
                list(tiles.values()),
                call,
                globals=global_decls(op, tiles),
                contexts=op.kind.test_contexts(op),
            )
            tests.compile.append(twins[key])
        return twins[key]

    for p in project.profiles:
        for variant in op.value_variants:
            twin(p.name, variant)
    for p in project.profiles:
        for rv in op.rules_for(p.name, static=True):
            variant = _variant_for(op, rv)
            if not_offered(rv.rule):
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
            broken = _break(project, op, rv, tiles, p.name)
            scalars = {**_scalar_default(op, broken.tiles), **broken.scalar_types}
            values = {**variant, **broken.values}  # a rule on a template value passes one outside it
            call = make_call(op, broken.tiles, values, scalars, with_tmp=broken.with_tmp)
            path = f"fail_{p.name.lower()}_{rv.id}"
            tests.compile.append(
                CompileCase.breaking(
                    path,
                    p.name,
                    rv,
                    list(broken.tiles.values()),
                    call,
                    also=_collateral(op, p.name, rv, broken.tiles, variant),
                    globals=global_decls(op, broken.tiles, broken.global_layouts),
                    contexts=op.kind.test_contexts(op),
                )
            )

    _plan_form_rules(project, op, tests, twin)


def _plan_form_rules(
    project: ProjectViewAPI,
    op: OpViewAPI,
    tests: OpTests,
    twin: Callable[[str, dict[str, str]], CompileCase | None],
) -> None:
    """Rules that check only some declarations (`forms`): per profile and form, a legal twin that
    calls the form with tiles every rule of it admits, and one case per rule that breaks it there."""
    for p in project.profiles:
        rules = op.form_rules_for(p.name)
        for form in op.forms:
            mine = [
                rv
                for rv in rules
                if rv.rule.forms is not None and in_form(rv.rule, form) and is_static(rv.rule)
            ]
            if not mine:
                continue
            legal = twin(p.name, dict(op.default_values))
            if legal is None:
                continue
            tiles = {t.name: t for t in legal.tiles}
            # The form's own scratch tiles (`tmp_f1`), shaped like the destination, as the runtime
            # cases declare them.
            if form.test.own_tiles and op.domain not in tiles:
                continue
            k = form.index
            tiles |= {
                n: replace(op.kind.form_tile(op, form, n[: -len(f"_f{k}")], tiles[op.domain]), name=n)
                for n in form.test.own_tiles
                if n not in tiles
            }
            # A rule names the form's own tiles by operand (`src0_idx`), the kernel as `src0_idx_f<k>`.
            own = {n[: -len(f"_f{k}")]: n for n in form.test.own_tiles}
            named = {n: o for o, n in own.items()}
            by_operand = {named.get(name, name): t for name, t in tiles.items()}
            for rv in mine:
                by_operand = part(rv.rule, TileFilter).legalise(by_operand)
            tiles = {own.get(name, name): t for name, t in by_operand.items()}

            def call_form(
                tiles: dict[str, TileDecl],
                form: FormViewAPI = form,
                mine: list[RuleViewAPI] = mine,
                values: dict[str, str] | None = None,
            ) -> tuple[Call, list[GlobalDecl]]:
                main = make_call(op, tiles, dict(op.default_values), _scalar_default(op, tiles))
                filters = [part(rv.rule, TileFilter) for rv in mine]
                dtypes = {n: d for f in filters for n, d in f.global_dtypes(tiles).items()}
                glob = global_decls(op, tiles, dtypes=dtypes)
                names = {t.name: t.type_name for t in tiles.values()} | {g.name: g.type_name for g in glob}
                targs = form.test.template_args(main.template_args, names, main.args, explicit=values)
                # A rule on a template value breaks by passing another one (Broken.values).
                spelled = [t.name for t in form.template if t.kind != "pack"]
                for name, value in (values or {}).items():
                    if name in spelled and spelled.index(name) < len(targs):
                        targs[spelled.index(name)] = value
                return Call(targs, form.test.call_args(main.args)), glob

            call, glob = call_form(tiles)
            low = p.name.lower()
            # The form's own context operands (TMRGSORT's executed counts), declared by the kernel.
            contexts = {o.name for o in form.own if o.kind == "context"}
            structs = [(str(q.type), f"{q.operand}_f{k}") for q in form.params if q.operand in contexts]
            tests.compile.append(
                CompileCase.legal(
                    f"legal_{low}_f{k}",
                    p.name,
                    list(tiles.values()),
                    call,
                    globals=glob,
                    of=f" of declaration {k}",
                    contexts=structs,
                )
            )
            for rv in mine:
                bx = BreakContext(project, op, rv, p.name)
                broken = part(rv.rule, StaticBreak).break_static(bx, dict(by_operand))
                broken.tiles = {own.get(name, name): t for name, t in broken.tiles.items()}
                call, glob = call_form(broken.tiles, values=broken.values)
                tests.compile.append(
                    CompileCase.breaking(
                        f"fail_{low}_{rv.id}_f{k}",
                        p.name,
                        rv,
                        list(broken.tiles.values()),
                        call,
                        globals=glob,
                        on=f" on declaration {k}",
                        contexts=structs,
                    )
                )


def _collateral(
    op: OpViewAPI, profile: str, broken: RuleViewAPI, tiles: dict[str, TileDecl], variant: dict[str, str]
) -> list[RuleViewAPI]:
    """Type rules of the profile that the tiles breaking `broken` violate as well: dtype lists,
    and rules that do not admit the combination of element types (a pair table), among them those
    checked on the main declaration alone (`forms: [0, ...]`), which the breaking call also calls."""
    out = []
    combo = {n: t.dtype for n, t in tiles.items()}
    main = [rv for rv in op.form_rules_for(profile) if is_static(rv.rule) and in_form(rv.rule, op.forms[0])]
    for rv in [*op.rules_for(profile, static=True), *main]:
        if rv is not broken and part(rv.rule, TypeFilter).broken_by(op, rv, combo, variant):
            out.append(rv)
    return out


def _plan_runtime_fail(project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
    for p in project.profiles:
        for rv in op.rules_for(p.name, static=False):
            variant = dict(op.default_values)
            want = {n: part(rv.rule, RuntimeCheck).runtime_dtypes(rv) for n in rv.rule.rule_operands}
            tiles = _legal_tiles(op, p.name, variant, want)
            if tiles is None:
                continue
            tiles = {
                n: shaped(op, replace(t, rows=8, cols=8, valid_rows=8, valid_cols=8, dynamic=True))
                for n, t in tiles.items()
            }
            tiles = profile_legalised(op, p.name, legalised(op, tiles))
            addresses = layout_addresses(project, list(tiles.values()))
            tiles, addresses = part(rv.rule, RuntimeCheck).break_runtime(tiles, addresses)
            call = make_call(op, tiles, variant, _scalar_default(op, tiles))
            path = f"rf_{p.name.lower()}_{rv.id}"
            tests.runtime_fail.append(
                RuntimeFailCase(path, p.name, rv, rv.id, list(tiles.values()), call, addresses)
            )
        for form in op.forms:
            for rv in form.rules_for(p.name, static=False):
                _plan_form_runtime_fail(project, op, tests, form, rv, p.name)


def _plan_form_runtime_fail(
    project: ProjectViewAPI, op: OpViewAPI, tests: OpTests, form: FormViewAPI, rv: RuleViewAPI, profile: str
) -> None:
    """The runtime-fail case of a run-time rule limited to some declarations (`forms`): the op's
    legal run-time tiles (with the form's own tiles, `<operand>_f<k>`, shaped like the destination),
    broken by the rule, passed to that declaration."""
    variant = dict(op.default_values)
    want = {n: part(rv.rule, RuntimeCheck).runtime_dtypes(rv) for n in rv.rule.rule_operands}
    tiles = _legal_tiles(op, profile, variant, want)
    if tiles is None or (form.test.own_tiles and op.domain not in tiles):
        return
    tiles = {
        n: shaped(op, replace(t, rows=8, cols=8, valid_rows=8, valid_cols=8, dynamic=True))
        for n, t in tiles.items()
    }
    tiles = profile_legalised(op, profile, legalised(op, tiles))
    k = form.index
    tiles |= {n: replace(tiles[op.domain], name=n) for n in form.test.own_tiles if n not in tiles}
    own = {n[: -len(f"_f{k}")]: n for n in form.test.own_tiles}
    named = {n: o for o, n in own.items()}
    by_operand = {named.get(n, n): t for n, t in tiles.items()}
    addresses = layout_addresses(project, list(by_operand.values()))
    by_operand, addresses = part(rv.rule, RuntimeCheck).break_runtime(by_operand, addresses)
    tiles = {own.get(n, n): replace(t, name=own.get(n, n)) for n, t in by_operand.items()}
    addresses = {own.get(n, n): a for n, a in addresses.items()}
    scalars = _scalar_default(op, tiles) | part(rv.rule, RuntimeCheck).runtime_scalars()
    main = make_call(op, tiles, variant, scalars)
    if k == 0:
        call = main
    else:
        names = {t.name: t.type_name for t in tiles.values()}
        call = Call(
            form.test.template_args(main.template_args, names, main.args), form.test.call_args(main.args)
        )
    path = f"rf_{profile.lower()}_{rv.id}_f{k}"
    tests.runtime_fail.append(
        RuntimeFailCase(path, profile, rv, f"{rv.id}_f{k}", list(tiles.values()), call, addresses)
    )


# ----------------------------------------------------------------------------- output jobs


def op_manifest(project: ProjectViewAPI, t: OpTests) -> OpManifest:
    """What the runner needs to build inputs, run the executables and judge results for one op."""
    op = t.op
    tol = op.spec.semantics.tolerance
    return OpManifest(
        mnemonic=op.spec.mnemonic,
        cpp=op.name,
        spec=op.path,
        kind=op.kind.name,
        reference=f"{t.dir}/reference.py",
        tolerance=Tolerance(tol.kind, getattr(tol, "ulp", 0)),
        domain=op.spec.semantics.domain,
        forms=[f.index for f in op.expr_forms],
        packed=[o.name for o in op.spec.operands if o.packed],
        streams=[o.name for o in op.spec.operands if o.packed == "stream"],
        region=op.kind.region(op),
        value_forms=[ValueForm(f.index, str(f.value_output)) for f in op.value_forms],
        source=op.kind.region_source(op),
        axis=op.kind.reduce_axis(op),
        compute=op.compute_operand,
        inputs=[o.name for o in op.spec.operands if o.name in op.value_operands],
        operands={o.name: o.kind for o in op.spec.operands},
        roles={o.name: o.role for o in op.spec.operands},
        outputs=op.result_operands,
        inactive_lanes=op.spec.semantics.inactive_lanes,
        executable=exe.path if (exe := t.executable()) else None,
        verify=ver.path if (ver := t.verify_file()) else None,
        runtime=[
            RuntimeGroup(
                k.id,
                k.dtypes,
                k.profiles,
                [
                    CaseEntry(
                        c.index,
                        c.label,
                        c.scalars,
                        c.attrs,
                        {
                            x.name: TileShape(
                                x.rows,
                                x.cols,
                                x.valid_rows,
                                x.valid_cols,
                                x.layout,
                                x.slayout,
                                x.pad,
                                x.fractal,
                                [x.conv[0], *x.conv[1]] if x.conv else None,
                            )
                            for x in c.tiles
                        },
                        {
                            g.name: GlobalShape(g.rows, g.cols, g.ld, g.layout, g.shape, g.strides, g.size)
                            for g in c.globals
                        },
                    )
                    for c in k.cases
                ],
                dict(k.ranges),
            )
            for k in t.runtime
        ],
        vector=[
            VectorGroup(k.id, k.first, k.dtype, k.lanes, k.profiles, k.masks, k.scalars) for k in t.vector
        ],
        compile=[CompileEntry(c.profile, c.fn, c.rule, c.rv is not None, c.messages()) for c in t.compile],
        runtime_fail=[
            RuntimeFailEntry(c.profile, c.id, c.rule, c.rv.runtime_message(c.profile), c.rv.stops)
            for c in t.runtime_fail
        ],
        extra=op.kind.manifest_extra(op),
    )


def project_manifest(project: ProjectViewAPI) -> ProjectManifest:
    return ProjectManifest(
        [p.name for p in project.profiles],
        {d.name: DTypeInfo(d.numpy, d.kind, d.bits) for d in project.targets.dtypes},
        {op.spec.stem: f"{OpTests(op).dir}/manifest.json" for op in project.ops},
    )


def op_test_jobs(project: ProjectViewAPI, op: OpViewAPI) -> list[tuple[str, str, dict[str, object]]]:
    """An op's test files: its reference, its cases and verify sources when it has such cases, and
    its manifest (`test_paths` names them without planning)."""
    with op.context("planning its tests"):
        t = plan_op(project, op)
    jobs: list[tuple[str, str, dict[str, object]]] = [
        (f"{t.dir}/reference.py", "tests/reference.py.j2", {"op": op})
    ]
    exe, ver = t.executable(), t.verify_file()
    if exe is not None:
        jobs.append((exe.path, "tests/cases.cpp.j2", {"op": op, "file": exe}))
    if ver is not None:
        jobs.append((ver.path, "tests/verify.cpp.j2", {"op": op, "file": ver}))
    jobs.append(
        (
            f"{t.dir}/manifest.json",
            "tests/manifest.json.j2",
            {"op": op, "data": op_manifest(project, t).to_json()},
        )
    )
    return jobs


def test_paths(op: OpViewAPI) -> tuple[set[str], set[str]]:
    """The paths `op_test_jobs` gives an op: (always, only when it has such cases)."""
    d = OpTests(op).dir
    return {f"{d}/reference.py", f"{d}/manifest.json"}, {f"{d}/cases.cpp", f"{d}/verify.cpp"}


def test_jobs(
    project: ProjectViewAPI, skip: frozenset[str] = frozenset()
) -> list[tuple[str, str, dict[str, object]]]:
    """The test files of every op but those whose mnemonics `skip` names (the caller has their files),
    and the project's manifest of all of them."""
    jobs: list[tuple[str, str, dict[str, object]]] = []
    for op in project.ops:
        if op.mnemonic not in skip:
            jobs.extend(op_test_jobs(project, op))
    jobs.append(
        ("tests/manifest.json", "tests/manifest.json.j2", {"data": project_manifest(project).to_json()})
    )
    return jobs
