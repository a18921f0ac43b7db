"""Communication ops (namespace pto::comm): moves between ranks' global memories, signals, and
collectives over a parallel group of ranks.

On the CPU simulator every rank is a GlobalTensor of one process (upstream's simulator has no
multi-rank runtime either), so the ops are what the runtime's `pto/comm/sim_comm.hpp` does: strided
copies, atomic signal updates and loops over the group. A spec's expression says which:

- `op(signal, value)` over a `NotifyOp` attribute, the signal written (TNOTIFY): the enum's
  expression is the signal's new value, stored or added atomically;
- `cmp(signal, value)` over a `WaitCmp` attribute, the signal read (TWAIT, TTEST): the condition a
  wait waits for or a test reports, over every signal of the tensor;
- `stacked(group)` (TGATHER): the group's tensors one after another along dimension 3, rank r's H rows
  at rows r*H..r*H+H-1; `split(src, group)` (TSCATTER), the reverse: `src`'s rows in as many equal
  blocks as the group has ranks, rank r receiving block r.
"""

from __future__ import annotations

import re
from dataclasses import replace
from itertools import product
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..importer.contract import OPERANDS, PageOp
from ..rules.parts import StaticBreak, part
from ..spec.kindfacts import KindFacts
from ..testing.golden import Check, GoldenContext, inputs, same_bits
from ..testing.plan import (
    BreakContext,
    Call,
    CompileCase,
    GlobalDecl,
    OpTests,
    RuntimeCase,
    RuntimeKernel,
    TileDecl,
    global_type_name,
)
from .base import OpKind

if TYPE_CHECKING:
    from ..kind_api import OpViewAPI, ProjectViewAPI
    from ..spec.expr import Node
    from ..spec.model import OpSpec


# Element types the data ops' tests run (the signals are int32_t); ranks of a group test; its root.
DATA_DTYPES = ["float", "int32_t", "half"]
SIGNAL_DTYPES = ["int32_t"]
RANKS, ROOT = 3, 1
# Context types a test declares itself (an asynchronous session); a group is built from its ranks.
SESSION_TYPES = ("AsyncSession",)
# A signal a comparison with `value` holds for (value + HOLDING[cmp]), and one it fails for.
HOLDING = {"EQ": 0, "NE": 1, "GT": 1, "GE": 0, "LT": -1, "LE": 0}
FAILING = {"EQ": 1, "NE": 0, "GT": 0, "GE": -1, "LT": 0, "LE": 1}
FOLD = {"Sum": np.add, "Max": np.maximum, "Min": np.minimum}
# The row-block functions and the collective each states.
STACKING = {"stacked": "stack", "split": "split"}


def _numbered(case: RuntimeCase, index: int) -> RuntimeCase:
    """The case as case `index` of its op, its own stored files named after it."""
    stored = [(f.replace("{k}", str(index)), d, n) for f, d, n in case.stored]
    return replace(case, index=index, stored=stored)


def _values(op: Any, attr: str) -> list[str]:
    """The values of an attribute operand's enum."""
    return list(next(e.values for e in op.targets.enums if e.name == op.enums_of[attr]))


def _window(buf: np.ndarray, g: Any) -> np.ndarray:
    """The rows x cols matrix a row-major GlobalTensor sees in its buffer."""
    return buf[: g.rows * g.ld].reshape(g.rows, g.ld)[:, : g.cols]


def _tex(name: str) -> str:
    return r"\mathrm{" + name.replace("_", r"\_") + "}"


class Comm(OpKind):
    name: ClassVar[str] = "comm"
    facts: ClassVar[KindFacts] = KindFacts(
        overloads_keep_values=False, reads_groups=True, functions=(("stacked", 1), ("split", 2))
    )

    # ----------------------------------------------------------------- spec checks
    def check_expr(self, expr: Node) -> list[str]:
        if expr.op == "name" or (expr.op == "apply" and len(expr.args) == 2):
            return []
        if expr.op == "apply" and expr.value in STACKING and all(a.op == "name" for a in expr.args):
            return []
        return [
            "a comm op's expression names the tensor it copies (`src`), applies its attribute to a "
            "signal or a group (`op(signal, value)`), or stacks a group's tensors (`stacked(group)`, "
            "`split(src, group)`)"
        ]

    def check_operands(self, spec: OpSpec) -> list[tuple[tuple[str | int, ...], str]]:
        return []

    def writes_domain(self, spec: OpSpec) -> bool:
        # a wait or test only reads its signals
        return next(o.role for o in spec.operands if o.name == spec.semantics.domain) == "dst"

    # ----------------------------------------------------------------- what an op does
    @staticmethod
    def action(op: OpViewAPI) -> str:
        """`copy`, `broadcast`, `stack`, `split`, `notify`, `reduce`, `wait` or `test`, from the
        spec's expression, its domain and its declaration."""
        expr = op.loaded.expr
        kinds = {o.name: o.kind for o in op.spec.operands}
        if expr.op == "apply" and expr.value in STACKING:
            return STACKING[str(expr.value)]
        if expr.op == "name":
            return "broadcast" if kinds[op.domain] == "context" else "copy"
        if op.operand(op.domain).role == "dst":
            return "reduce" if kinds.get(str(expr.args[0].value)) == "context" else "notify"
        intr = op.spec.intrinsic
        return "test" if intr is not None and intr.returns == "bool" else "wait"

    @staticmethod
    def source(op: OpViewAPI) -> str:
        """The operand the expression reads first: the tensor copied, the signal, the group."""
        expr = op.loaded.expr
        return str(expr.value if expr.op == "name" else expr.args[0].value)

    def runtime_call(self, op: OpViewAPI) -> str:
        """The function of pto/comm/sim_comm.hpp a collective that stacks or splits runs."""
        return {"stack": "gather", "split": "scatter"}[self.action(op)]

    def group(self, op: OpViewAPI) -> str:
        """The parallel group a collective reads (TREDUCE, TGATHER) or writes."""
        return self.source(op) if self.action(op) in ("reduce", "stack") else op.domain

    @staticmethod
    def attr(op: OpViewAPI) -> str:
        return next(o.name for o in op.spec.operands if o.kind == "attr")

    @staticmethod
    def scalar(op: OpViewAPI) -> str:
        return next(o.name for o in op.spec.operands if o.kind == "scalar")

    # ----------------------------------------------------------------- import
    # templates/opkinds/comm/domain.md.j2: how each action's paragraph before the formula begins
    domain_starts: ClassVar[tuple[str, ...]] = (
        "For every position d of",
        "For every rank r of the group",
        "The signal's first element",
        "The op returns once every signal",
        "The op returns true when every signal",
    )

    def recognise(self, page: PageOp) -> int | None:
        # The paragraph is this kind's own; it outranks a transfer's GlobalTensor operands.
        if page.vector or not page.intro.startswith(self.domain_starts):
            return None
        return OPERANDS

    def import_domain(self, operands: list[dict[str, Any]]) -> str | None:
        # what the op writes; a wait or test writes nothing and works on its signal
        dst = next((o["name"] for o in operands if o["role"] == "dst"), None)
        return dst or next((o["name"] for o in operands if o["kind"] == "global"), None)

    def import_formulas(self, math: str) -> list[tuple[str | None, str]]:
        # `math` is one of `math`'s shapes below; each is read back as element notation.
        element = math.replace("^{(r)}", "").replace("_{d}", "_{i,j}")
        name, rows = r"(\\mathrm\{[^}]*\})", r"_\{d \+ rH e_3\}"
        if m := re.fullmatch(rf"{name}{rows} = {name}\^\{{\(r\)\}}_\{{d\}}", math):  # gather
            return [(None, rf"{m[1]}_{{i,j}} = \mathrm{{stacked}}({m[2]}_{{i,j}})")]
        if m := re.fullmatch(rf"{name}\^\{{\(r\)\}}_\{{d\}} = {name}{rows}", math):  # scatter
            return [(None, rf"{m[1]}_{{i,j}} = \mathrm{{split}}({m[2]}_{{i,j}}, {m[1]}_{{i,j}})")]
        if m := re.fullmatch(r"(\\mathrm\{[^}]*\}) \\leftarrow (.*)", math):  # notify
            lhs, rhs = m.groups()
            return [(None, f"{lhs}_{{i,j}} = " + rhs.replace(f"{lhs},", f"{lhs}_{{i,j}},"))]
        if m := re.fullmatch(
            r"\\bigwedge_\{d\} ((\\mathrm\{[^}]*\})\(([^,]*)_\{d\}, .*)", math
        ):  # wait, test
            return [(None, f"{m.group(3)}_{{i,j}} = " + m.group(1).replace("_{d}", "_{i,j}"))]
        if m := re.fullmatch(
            r"(.*?) = (\\mathrm\{[^}]*\})\\big\(\2\((\\mathrm\{[^}]*\}).*", element
        ):  # reduce
            lhs, attr, group = m.groups()
            return [(None, f"{lhs} = {attr}({group}_{{i,j}}, {group}_{{i,j}})")]
        return [(None, element)]

    def complete_import(self, semantics: dict[str, Any], operands: list[dict[str, Any]]) -> None:
        # A reduction reads its group (`op(group, group)`) and a gather too (`stacked(group)`), and
        # each writes a tensor; a page without an operand table takes the first parameter, the
        # group, for the destination.
        domain = semantics["domain"]
        kinds = {o["name"]: o["kind"] for o in operands}
        reads = f"({domain}, {domain})" in semantics["expr"] or semantics["expr"] == f"stacked({domain})"
        if kinds.get(domain) != "context" or not reads:
            return
        target = next(o for o in operands if o["kind"] == "global")
        semantics["domain"] = target["name"]
        for o in operands:
            o["role"] = "dst" if o is target else "src" if o["name"] == domain else o["role"]
        operands.sort(key=lambda o: o["role"] != "dst")

    # ----------------------------------------------------------------- math
    def math(self, op: OpViewAPI) -> str:
        """The page's formula: each action over every five-dimensional position `d` of a tensor."""
        action = self.action(op)
        dst, src = _tex(op.domain), _tex(self.source(op))
        if action == "copy":
            return rf"{dst}_{{d}} = {src}_{{d}}"
        if action == "broadcast":
            return rf"{dst}^{{(r)}}_{{d}} = {src}_{{d}}"
        if action == "stack":
            return rf"{dst}_{{d + rH e_3}} = {src}^{{(r)}}_{{d}}"
        if action == "split":
            return rf"{dst}^{{(r)}}_{{d}} = {src}_{{d + rH e_3}}"
        attr = _tex(self.attr(op))
        if action == "reduce":
            first, second = rf"{src}^{{(r_0)}}_{{d}}", rf"{src}^{{(r_1)}}_{{d}}"
            return rf"{dst}_{{d}} = {attr}\big({attr}({first}, {second}), \ldots\big)"
        scalar = _tex(self.scalar(op))
        if action == "notify":
            return rf"{dst} \leftarrow {attr}({dst}, {scalar})"
        return rf"\bigwedge_{{d}} {attr}({dst}_{{d}}, {scalar})"

    def result_index(self, op: OpViewAPI) -> str:
        return "d"

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        return "d"

    # ----------------------------------------------------------------- tests
    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        action = self.action(op)
        profiles = [p.name for p in project.profiles]
        dtypes = SIGNAL_DTYPES if action in ("notify", "wait", "test") else DATA_DTYPES
        first = 0
        for dtype in dtypes:
            cases = [_numbered(c, first + k) for k, c in enumerate(self._cases(op, action, dtype))]
            first += len(cases)
            if cases:
                tests.runtime.append(RuntimeKernel(dtype, self._dtypes(op, dtype), {}, profiles, cases))
        # A legal call per profile, and one that breaks each of the profile's rules.
        for p in profiles:
            legal = self._cases(op, action, dtypes[0], legal=True)[0]
            tests.compile.append(
                CompileCase.legal(
                    f"legal_{p.lower()}",
                    p,
                    legal.tiles,
                    legal.call,
                    globals=legal.globals,
                    contexts=legal.contexts,
                )
            )
            for rv in op.rules_for(p, static=True):
                tiles, globs = self._broken(project, op, rv, p, legal)
                tests.compile.append(
                    CompileCase.breaking(
                        f"fail_{p.lower()}_{rv.id}",
                        p,
                        rv,
                        tiles,
                        legal.call,
                        globals=globs,
                        contexts=legal.contexts,
                    )
                )

    def _broken(
        self, project: ProjectViewAPI, op: OpViewAPI, rv: Any, profile: str, legal: RuntimeCase
    ) -> tuple[list[TileDecl], list[GlobalDecl]]:
        """The legal call's tiles and tensors with what breaks `rv` alone: the rule sees each tensor,
        and a group as its tensors, as a stand-in tile of its element type and changes its type (or
        names a layout for it); a group's change applies to every rank's tensor."""
        group = self.group(op) if self.action(op) not in ("copy", "notify", "wait", "test") else None
        globs = {g.name: g for g in legal.globals}
        held = {n: globs["rank0" if n == group else n] for n in [*globs, *([group] if group else [])]}
        stand_ins = {t.name: t for t in legal.tiles} | {n: TileDecl(n, g.dtype) for n, g in held.items()}
        broken = part(rv.rule, StaticBreak).break_static(BreakContext(project, op, rv, profile), stand_ins)
        tiles = [broken.tiles[t.name] for t in legal.tiles]

        def changed(g: GlobalDecl, name: str) -> GlobalDecl:
            layout = broken.global_layouts.get(name, g.layout)
            return replace(g, dtype=broken.tiles[name].dtype, layout=layout)

        out = [changed(g, group if group and g.name.startswith("rank") else g.name) for g in legal.globals]
        return tiles, out

    def _dtypes(self, op: OpViewAPI, dtype: str) -> dict[str, str]:
        ranks = {f"rank{r}": dtype for r in range(RANKS)}  # a group's tensors
        return {o.name: "int32_t" if o.kind == "scalar" else dtype for o in op.spec.operands} | ranks

    def _cases(self, op: OpViewAPI, action: str, dtype: str, legal: bool = False) -> list[RuntimeCase]:
        """The runtime cases of one element type (a legal call first): every mode of the op's
        attribute, tensors seen through strides wider than their rows."""
        intr = op.spec.intrinsic
        assert intr is not None
        tiles = [TileDecl(o.name, dtype, 4, 8, 4, 8) for o in op.spec.operands if o.kind == "tile"]
        addresses = {t.name: 0x1000 * k for k, t in enumerate(tiles)}
        contexts = [
            (f"comm::{p.type}", str(p.operand))
            for p in intr.params
            if p.operand and op.operand(p.operand).kind == "context" and p.type in SESSION_TYPES
        ]
        if action in ("notify", "wait", "test"):
            # signals: one int32_t (notify) or a 4 x 8 window of a 16-wide matrix (wait, test)
            shapes = [(1, 1, 1)] if action == "notify" else [(4, 8, 16), (1, 1, 1)]
            values = [7, -3, 0, 123] if action == "notify" else [7]  # notified values
            attr, scalar = self.attr(op), self.scalar(op)
            out = []
            for (rows, cols, ld), value, mode in product(shapes, values, _values(op, attr)):
                glob = GlobalDecl(op.domain, "int32_t", rows, cols, ld)
                held = [True] if action != "test" else [True, False]
                for holds in held:
                    args = [self._arg(op, p, mode, legal) for p in intr.params if not p.events]
                    after, stored = [], []
                    if action == "test":
                        call = ", ".join(args)
                        after = [f"const int32_t result = comm::{intr.name}({call}) ? 1 : 0;"]
                        stored = [("c{k}_result.out", "&result", 1)]
                    label = f"{action} {mode} {value} on {rows}x{cols}"
                    label += "" if action != "test" else " holding" if holds else " failing"
                    attrs = {"action": action, "mode": mode, "holds": "1" if holds else "0"}
                    out.append(
                        RuntimeCase(
                            0,
                            label,
                            [],
                            {scalar: value},
                            Call([], args),
                            {},
                            attrs,
                            [glob],
                            [],
                            after_call=after,
                            stored=stored,
                            forms=[],
                        )
                    )
                    if legal:
                        return out
            return out
        if action in ("copy", "stack", "split") and not legal:  # strided windows, one contiguous row
            geometries = [(4, 8, 12, 16), (1, 64, 64, 64), (7, 5, 5, 9)]
        else:
            geometries = [(4, 8, 12, 16)]
        out = []
        for rows, cols, ld_dst, ld_src in geometries:
            out += self._data_cases(
                op, action, dtype, tiles, addresses, contexts, legal, rows, cols, ld_dst, ld_src
            )
        return out

    def _data_cases(
        self,
        op: OpViewAPI,
        action: str,
        dtype: str,
        tiles: list[TileDecl],
        addresses: dict[str, int],
        contexts: list[tuple[str, str]],
        legal: bool,
        rows: int,
        cols: int,
        ld_dst: int,
        ld_src: int,
    ) -> list[RuntimeCase]:
        """The cases of the data ops (copies and collectives) over rows x cols tensors."""
        intr = op.spec.intrinsic
        assert intr is not None
        src = self.source(op)
        # the stacked tensor of a gather or scatter holds every rank's rows
        stacked = {"stack": op.domain, "split": src}.get(action)
        globs = [
            GlobalDecl(n, dtype, RANKS * rows if n == stacked else rows, cols, ld)
            for n, ld in ((op.domain, ld_dst), (src, ld_src))
        ]
        group = self.group(op)
        ranks: list[GlobalDecl] = []
        if action != "copy":  # the group's tensors are ranks of one type; the group is declared
            ranks = [GlobalDecl(f"rank{r}", dtype, rows, cols, ld_src) for r in range(RANKS)]
            rank_type = global_type_name("rank0")
            globs = [g for g in globs if g.name != group] + ranks
            # a compile case declares the group itself: one rank, its root
            contexts = (
                [(f"comm::ParallelGroup<{rank_type}>", f"{group}{{&rank0, 1, 0}}")] if legal else contexts
            )
        attr = next((o.name for o in op.spec.operands if o.kind == "attr"), None)
        modes = list(_values(op, attr)) if action == "reduce" and attr else [None]
        out = []
        for mode in modes:
            args = [self._arg(op, p, mode, legal) for p in intr.params if not p.events]
            before: list[str] = []
            if action != "copy" and not legal:
                names = ", ".join(f"rank{r}" for r in range(RANKS))
                before = [
                    f"{rank_type} {group}_ranks[] = {{{names}}};",
                    f"comm::ParallelGroup<{rank_type}> {group}({group}_ranks, {RANKS}, {ROOT});",
                ]
            if action == "broadcast" and not legal:
                continue  # its results are the group's tensors, not one the case stores: compiled only
            label = f"{action} {dtype} {rows}x{cols} through row strides {ld_dst} and {ld_src}"
            label += f", {mode}" if mode else ""
            # a scatter's results are the group's tensors: each rank's buffer is stored
            stored = [(f"c{{k}}_rank{r}.out", f"rank{r}_buf.get()", g.size) for r, g in enumerate(ranks)]
            out.append(
                RuntimeCase(
                    0,
                    label,
                    tiles,
                    {},
                    Call([], args),
                    addresses,
                    {"action": action, "mode": mode or ""},
                    globs,
                    contexts,
                    before_call=before,
                    stored=stored if action == "split" else [],
                    forms=[],
                )
            )
        return out

    @staticmethod
    def _arg(op: OpViewAPI, p: Any, mode: str | None, legal: bool) -> str:
        """A call argument: an operand's variable, a scalar's loaded value (a constant in a compile
        case), the attribute's mode."""
        if p.attr is not None:
            enum = next(e for e in op.targets.enums if e.name == p.attr)
            prefix = f"{enum.namespace}::" if enum.namespace else ""
            return f"{prefix}{p.attr}::{mode or enum.values[0]}"
        if p.value_type is not None:
            return f"{p.value_type}{{0}}" if legal else f"{p.operand}_value"  # 0: what a new signal holds
        return str(p.operand)

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        checks: list[Check] = []
        for case in gx.group.cases:
            k, action, mode = case.index, case.attrs["action"], case.attrs["mode"]
            label = f"{gx.label} case {k} ({case.label})"
            seed = f"{gx.op_name}/{gx.entry.group}/{k}"
            bufs = {}
            for name, g in case.globals.items():
                dt = gx.np_type(gx.group.dtypes.get(name, "int32_t"))
                bufs[name] = inputs(dt, g.size, f"{seed}/{name}")
                if action == "reduce" and dt.kind == "f":  # finite, no -0: NaN payloads and zero signs
                    bufs[name][~np.isfinite(bufs[name])] = 1  # are the backend's, not the fold's
                    bufs[name][bufs[name] == 0] = 0
            for name, t in case.tiles.items():
                dt = gx.np_type(gx.group.dtypes[name])
                inputs(dt, t.rows * t.cols, f"{seed}/{name}").tofile(data / f"c{k}_{name}.bin")
            for name, value in case.scalars.items():
                np.array([value], dtype=np.int32).tofile(data / f"c{k}_{name}.bin")
            domain = gx.op.domain
            if action in ("wait", "test", "notify"):
                value = int(next(iter(case.scalars.values())))
                sig = bufs[domain]
                if action != "notify":
                    # every signal satisfies `signal mode value`; a failing test's first one does not
                    sig[:] = value + HOLDING[mode]
                    if case.attrs["holds"] == "0":
                        sig[0] = value + FAILING[mode]
                else:
                    sig[:] = 5
                want = sig.copy()
                if action == "notify":
                    want[0] = value if mode == "Set" else sig[0] + value
                if action == "test":
                    result = np.array([int(case.attrs["holds"])], dtype=np.int32)
                    checks.append(same_bits(f"c{k}_result.out", result, label, "result"))
            elif action == "copy":
                want = bufs[domain].copy()
                src = next(n for n in case.globals if n != domain)
                _window(want, case.globals[domain])[...] = _window(bufs[src], case.globals[src])
            elif action == "stack":  # rank r's rows land at rows r*H.. of dst
                want = bufs[domain].copy()
                rank, h = case.globals["rank0"], case.globals["rank0"].rows
                for r in range(RANKS):
                    _window(want, case.globals[domain])[r * h : (r + 1) * h] = _window(bufs[f"rank{r}"], rank)
            elif action == "split":  # rank r receives rows r*H.. of src
                src = next(n for n in case.globals if not n.startswith("rank"))
                rank, h = case.globals["rank0"], case.globals["rank0"].rows
                for r in range(RANKS):
                    got = bufs[f"rank{r}"].copy()
                    _window(got, rank)[...] = _window(bufs[src], case.globals[src])[r * h : (r + 1) * h]
                    checks.append(same_bits(f"c{k}_rank{r}.out", got, label, f"rank {r}'s rows"))
            else:  # reduce: the root's tensor first, then the others by rank, in the element type
                ranks = [bufs[f"rank{r}"] for r in range(RANKS)]
                order = [ROOT, *(r for r in range(RANKS) if r != ROOT)]
                acc = _window(ranks[order[0]], case.globals["rank0"]).copy()
                for r in order[1:]:
                    nxt = _window(ranks[r], case.globals["rank0"])
                    acc = FOLD[mode](acc, nxt).astype(acc.dtype)
                want = bufs[domain].copy()
                _window(want, case.globals[domain])[...] = acc
            for name, buf in bufs.items():
                buf.tofile(data / f"c{k}_{name}.bin")
            if action != "split":
                checks.append(same_bits(f"c{k}_{domain}.out", want, label, f"{action} result"))
        return checks

    # ----------------------------------------------------------------- backend
    def sim_targs(self, op: OpViewAPI, form: Any) -> list[str]:
        # the compile-time modes the declaration passes on (TPUT's atomicType, the async engine)
        passed = set(form.dispatch.template_args)
        return [t.name for t in form.template if t.kind == "value" and t.name in passed]

    def sim_args(self, op: OpViewAPI, form: Any) -> list[str]:
        action = self.action(op)
        if action in ("copy", "broadcast", "split"):
            # the two ends, then a mode chosen at run time; staging tiles and sessions carry nothing
            modes = [p.name for p in form.params if p.attr]
            return [form.arg(op.domain), form.arg(self.source(op)), *modes]
        if action == "reduce":
            return [form.arg(self.source(op)), form.arg(op.domain), form.arg(self.attr(op))]
        if action == "stack":
            return [form.arg(self.source(op)), form.arg(op.domain)]
        return [form.arg(op.domain), form.arg(self.scalar(op)), form.arg(self.attr(op))]
