"""Ops over the union of two valid regions (TPARTADD, TPARTMUL, TPARTMAX, TPARTMIN and the arg forms
TPARTARGMAX, TPARTARGMIN).

The expression is an element-wise one over two source tiles, `src0 + src1`; the kind applies it
where both sources are valid and otherwise copies the one source that is valid there. It walks the
destination's whole valid region (a whole-tile domain), so each element of that region falls in one
of four parts: the intersection of the two sources' valid regions (the expression), the part only
`src0` covers (its element), the part only `src1` covers (its element) and the rest (zero, as
upstream's CPU simulator writes it; the pages leave it implementation-defined).

An op may write further outputs (`semantics.extra_outputs`): TPARTARGMAX's index tile
`dstIdx = select(src0Val > src1Val, src0Idx, src1Idx)`. Such an expression reads a partner tile of
each source (the tiles it reads that the main expression does not, in operand order, paired with
the main expression's sources in order); where one source alone is valid, the output copies that
source's partner. Every value is computed in the compute type of its own element type, and each
output is narrowed to its own element type.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..importer.contract import DOMAIN, PageOp
from ..kindlib.tilemath import TileMath, plan_runtime_groups, tolerance_check
from ..spec import expr as semantics
from ..spec.kindfacts import KindFacts
from ..testing import refmath as rm
from ..testing.golden import Check, GoldenContext, compute_dtype, inputs, logical
from ..testing.plan import OpTests, plan_rule_cases
from ..testing.refmath import narrow

if TYPE_CHECKING:
    from ..kind_api import FormViewAPI, OpViewAPI, ProjectViewAPI


def _tiles_read(op: OpViewAPI, node: semantics.Node) -> list[str]:
    used = semantics.names_used(node)
    return [o.name for o in op.spec.operands if o.name in used and o.kind == "tile"]


# How the runtime cases split the valid regions: which source keeps the destination's valid
# region and which one covers less of it (rows, columns scaled by 2/3, at least one each).
PATTERNS = [
    ("src1 partial", 1),
    ("src0 partial", 0),
    ("both whole", None),
]


def _shrunk(extent: int) -> int:
    return max(1, extent * 2 // 3)


class Partial(TileMath):
    name: ClassVar[str] = "partial"
    facts: ClassVar[KindFacts] = KindFacts(tile_extra_outputs=True)
    whole_tile_bench: ClassVar[bool] = False  # each element also asks which valid regions hold it
    domain_starts: ClassVar[tuple[str, ...]] = ("For each",)

    # ----------------------------------------------------------------- spec checks
    def check_expr(self, expr: semantics.Node) -> list[str]:
        problems = super().check_expr(expr)
        if semantics.is_assignment(expr):
            problems.append("a partial op's expression is element-wise, e.g. `src0 + src1`")
        return problems

    # ----------------------------------------------------------------- the operands' parts
    def sources(self, op: OpViewAPI) -> list[str]:
        """The two source tiles whose valid regions the op joins (the main expression's tiles)."""
        return _tiles_read(op, op.loaded.expr)

    def partners(self, op: OpViewAPI, output: str) -> list[str]:
        """The tiles an output copies where only one source is valid, paired with `sources`."""
        if output == op.domain:
            return self.sources(op)
        main = set(self.sources(op))
        return [n for n in _tiles_read(op, op.extra_exprs[output]) if n not in main]

    def outputs_of(self, op: OpViewAPI) -> list[dict[str, Any]]:
        """Each output with its expression's C++ (each operand `<name>_v` in its own compute type,
        the result in the output's, `C`) and its partners."""
        nodes = {op.domain: op.loaded.expr, **op.extra_exprs}
        return [
            {
                "name": name,
                "source": op.spec.semantics.extra_outputs.get(name, op.spec.semantics.expr),
                "cpp": semantics.to_cpp(node, lambda n: f"{n}_v", "C", op.enums_of, op.varying_operands),
                "reads": _tiles_read(op, node),
                "partners": self.partners(op, name),
            }
            for name, node in nodes.items()
        ]

    def pairs(self, op: OpViewAPI) -> list[tuple[str, str]]:
        """(source, partner) pairs whose valid regions the pages require to be equal."""
        out = []
        for name in op.extra_exprs:
            out += list(zip(self.sources(op), self.partners(op, name), strict=False))
        return out

    # ----------------------------------------------------------------- math
    def math(self, op: OpViewAPI) -> str | None:
        s0, s1 = self.sources(op)

        def tex(name: str) -> str:
            return name.replace("_", r"\_")  # an underscore in \mathrm is a subscript

        def ref(name: str) -> str:
            return rf"\mathrm{{{tex(name)}}}_{{i,j}}"

        def region(name: str) -> str:  # V_0, V_1: the sources' valid regions (domain.md.j2)
            return f"V_{self.sources(op).index(name)}"

        lines = []
        nodes = {op.domain: op.loaded.expr, **op.extra_exprs}
        for name, node in nodes.items():
            p0, p1 = self.partners(op, name)
            lines.append(
                rf"{ref(name)} = \begin{{cases}}"
                rf"{semantics.to_latex(node, ref)} & (i,j) \in {region(s0)} \cap {region(s1)} \\ "
                rf"{ref(p0)} & (i,j) \in {region(s0)} \setminus {region(s1)} \\ "
                rf"{ref(p1)} & (i,j) \in {region(s1)} \setminus {region(s0)} \\ "
                r"0 & \text{otherwise}\end{cases}"
            )
        if len(lines) == 1:
            return lines[0]
        return r"\begin{aligned}" + r" \\ ".join(lines) + r"\end{aligned}"

    def import_formulas(self, math: str) -> list[tuple[str | None, str]]:
        # `math` writes each result as `lhs = \begin{cases}EXPR & (both valid) \\ ...`; the
        # element formula of a result is its first case.
        body = math.removeprefix(r"\begin{aligned}").removesuffix(r"\end{aligned}")
        out: list[tuple[str | None, str]] = []
        for m in re.finditer(r"\\mathrm\{([\w\\]+)\}_\{i,j\} = \\begin\{cases\}(.*?) & ", body):
            name = m.group(1).replace(r"\_", "_")
            out.append((name, rf"\mathrm{{{m.group(1)}}}_{{i,j}} = {m.group(2)}"))
        return out or [(None, math)]

    def complete_import(self, semantics: dict[str, Any], operands: list[dict[str, Any]]) -> None:
        # A further result is a destination (a page without an operand table cannot say so), and
        # destinations come first.
        for o in operands:
            if o["name"] in semantics.get("extra_outputs", {}):
                o["role"] = "dst"
        operands.sort(key=lambda o: o["role"] != "dst")

    def recognise(self, page: PageOp) -> int | None:
        # templates/opkinds/partial/domain.md.j2: "For each element ... over the union of the valid regions"
        if page.vector or not page.intro_says("the union of the valid regions"):
            return None
        return DOMAIN

    # ----------------------------------------------------------------- backend
    def sim_args(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        arg = {p.operand: p.name for p in form.params if p.operand is not None}
        return [arg[n] for n in (op.domain, *op.extra_exprs, *op.read_operands)]

    # ----------------------------------------------------------------- tests
    def manifest_extra(self, op: OpViewAPI) -> dict[str, Any]:
        extra = {name: semantics.to_numpy(node, op.enums_of) for name, node in op.extra_exprs.items()}
        return {
            "sources": self.sources(op),
            "partners": {o["name"]: o["partners"] for o in self.outputs_of(op)},
            "extra_numpy": extra,
        }

    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        plan_runtime_groups(project, op, tests)
        # The element-wise plan repeats the full shape once per scalar test value; a partial op reads
        # no scalar, so those repeats go, and the cases are numbered again.
        if not any(o.kind == "scalar" for o in op.spec.operands):
            index = 0
            for kernel in tests.runtime:
                kernel.cases = [c for c in kernel.cases if ", scalar " not in c.label]
                for case in kernel.cases:
                    case.index = index
                    index += 1
        # Each case keeps the element-wise plan's shape on the destination and splits the sources'
        # valid regions by one of PATTERNS (a source's partner tiles follow it).
        followers: dict[str, list[str]] = {s: [s] for s in self.sources(op)}
        for name in op.extra_exprs:
            for s, p in zip(self.sources(op), self.partners(op, name), strict=False):
                followers[s].append(p)
        for kernel in tests.runtime:
            for n, case in enumerate(kernel.cases):
                label, shrink = PATTERNS[n % len(PATTERNS)]
                if shrink is None:
                    case.label = f"{case.label}, {label}"
                    continue
                part = set(followers[self.sources(op)[shrink]])
                case.tiles = [
                    dataclasses.replace(t, valid_rows=_shrunk(t.valid_rows), valid_cols=_shrunk(t.valid_cols))
                    if t.name in part
                    else t
                    for t in case.tiles
                ]
                case.label = f"{case.label}, {label}"
        plan_rule_cases(project, op, tests)

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        op = gx.op
        types = {n: gx.np_type(d) for n, d in gx.group.dtypes.items()}
        s0, s1 = op.extra["sources"]
        partners: dict[str, list[str]] = op.extra["partners"]
        checks: list[Check] = []
        for case in gx.group.cases:
            k = case.index
            full: dict[str, np.ndarray] = {}
            for name, t in case.tiles.items():
                flat = inputs(types[name], t.rows * t.cols, f"{gx.op_name}/{gx.entry.group}/{k}/{name}")
                flat.tofile(data / f"c{k}_{name}.bin")
                full[name] = logical(flat, t.rows, t.cols, t.layout)
            d = case.tiles[op.domain]
            vr, vc = d.valid_rows, d.valid_cols

            in0, in1 = (_covered(case.tiles[s], vr, vc) for s in (s0, s1))
            args = {n: _over(full[n], vr, vc) for n in op.inputs}
            label = f"{gx.label} case {k} ({case.label})"
            for name, (p0, p1) in partners.items():
                storage = types[name]
                cdt = compute_dtype(storage)
                with np.errstate(all="ignore"):
                    if name == op.domain:
                        both = gx.reference.reference(cdt.type, storage.type, *[args[n] for n in op.inputs])
                    else:
                        scope = {"rm": rm, "C": cdt.type, "T": storage.type, **args}
                        both = eval(op.extra["extra_numpy"][name], scope)  # noqa: S307 - generated numpy of the spec
                    both = narrow(np.broadcast_to(np.asarray(both), (vr, vc)), storage)
                    one0 = _over(full[p0], vr, vc).astype(storage)
                    one1 = _over(full[p1], vr, vc).astype(storage)
                want = np.where(in0 & in1, both, np.where(in0, one0, np.where(in1, one1, storage.type(0))))
                t = case.tiles[name]
                before = full[name].copy()
                checks.append(
                    tolerance_check(
                        f"c{k}_{name}.out",
                        t,
                        want.astype(storage),
                        before,
                        f"{label}, {name}",
                        {},
                        storage,
                        op,
                    )
                )
        return checks


def _covered(t: Any, vr: int, vc: int) -> np.ndarray:
    """Which elements of a vr x vc region lie in tile `t`'s valid region."""
    rows = np.arange(vr)[:, None] < t.valid_rows
    return rows & (np.arange(vc)[None, :] < t.valid_cols)


def _over(a: np.ndarray, vr: int, vc: int) -> np.ndarray:
    """A tile's elements (its logical matrix `a`) over a vr x vc region, in their compute type."""
    out = np.zeros((vr, vc), dtype=a.dtype)
    r, c = min(vr, a.shape[0]), min(vc, a.shape[1])
    out[:r, :c] = a[:r, :c]
    return out.astype(compute_dtype(a.dtype))


__all__ = ["Partial"]
