"""Pipes between a cube core and its vector cores (TALLOC, TPUSH, TPOP, TFREE) and the fix-pipe's
quantisation state a cube-to-vector push reads (SET_QUANT_SCALAR, SET_QUANT_VECTOR).

A pipe is a ring of slots that producer and consumer cores share (`TPipe`, a context operand); the
ops change the ring's state and move a tile into or out of a slot, so they are stateful and compute
no element: `semantics.expr` names the operand the op writes or reads. The simulator is the
runtime's `pto/cpu/pipe.hpp`, one host thread per simulated core; which of its steps an op runs
follows from its operands:

- a pipe and a tile it reads: the producer's push (TPUSH; its GM form publishes a tensor's slot);
- a pipe and a tile it writes: the consumer's pop (TPOP; its GM form binds a tensor to the slot);
- a pipe and a tensor it writes: the producer's slot allocation (TALLOC);
- a pipe alone: the consumer's free (TFREE);
- no pipe: a quantisation register (a scalar: SET_QUANT_SCALAR; a parameter tile: SET_QUANT_VECTOR).

The tests run producer and consumer cores on threads of their own (`std::thread`, each under its
execution context) and compare the popped tiles with the pushed ones, converted as the fix-pipe
converts them.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..importer.contract import OPERANDS, PageOp
from ..lower.contract import FormBackend
from ..rules.parts import StaticBreak, not_offered, part
from ..spec.kindfacts import KindFacts
from ..testing.golden import Check, GoldenContext, inputs, logical, same_bits
from ..testing.plan import (
    BreakContext,
    Call,
    CompileCase,
    GlobalDecl,
    OpTests,
    RuntimeCase,
    RuntimeKernel,
    TileDecl,
    plan_rule_cases,
)
from .base import NamesOperand

if TYPE_CHECKING:
    from ..kind_api import FormViewAPI, OpViewAPI, ProjectViewAPI
    from ..spec.model import OpSpec

# The runtime step each op runs (pto/cpu/pipe.hpp), by its operands: see the module's docstring.
PUSH, POP, ALLOC, FREE, QUANT_SCALAR, QUANT_VECTOR = (
    "push",
    "pop",
    "alloc",
    "free",
    "quant_scalar",
    "quant_vector",
)
# What a declaration without a split axis passes for it: the whole tile to one vector core.
NO_SPLIT = "TileSplitAxis::TILE_NO_SPLIT"
# How the kind's domain paragraph (templates/opkinds/pipe/domain.md.j2) begins.
PIPE_DOMAIN = "No element is computed: the op changes the state of a pipe"


def _tex(name: str) -> str:
    return r"\mathrm{" + name.replace("_", r"\_") + "}"


def step(spec: OpSpec) -> str:
    """The runtime step of an op, from its main declaration's operands."""
    pipe = [o for o in spec.operands if o.kind == "context"]
    others = [o for o in spec.operands if o.kind != "context"]
    if not pipe:
        return QUANT_VECTOR if any(o.kind == "tile" for o in others) else QUANT_SCALAR
    if not others:
        return FREE
    data = others[0]
    if data.kind == "global":
        return ALLOC
    return POP if data.role == "dst" else PUSH


def grid_forms(spec: OpSpec) -> dict[int, str]:
    """The GridPipe declarations (by form index, 1 for the first overload) and what each runs: a push
    to a neighbour (`push`), a broadcast along a span (`broadcast`) or a pop (`pop`). Upstream tells
    them from the TPipe forms by their guard on the pipe's type (`is_grid_pipe_v<Pipe>`)."""
    intr = spec.intrinsic
    if intr is None:
        return {}
    pipe = next((o.name for o in spec.operands if o.kind == "context"), None)
    out: dict[int, str] = {}
    for k, ov in enumerate(intr.overloads, start=1):
        pipe_type = next((str(p.type) for p in ov.params if str(p.operand) == pipe), None)
        if pipe_type is None or pipe_type not in ov.guard:
            continue
        spans = any(t.kind == "value" and str(t.type).endswith("GridSpan") for t in ov.template)
        out[k] = "broadcast" if spans else step(spec)
    return out


def form_name(op: OpViewAPI, form: FormViewAPI) -> str:
    """Which of the TPipe declarations a form is, by its shape (the scenarios' `form`): a tensor's
    (`gm`), one with an explicit sub-block id (`sub_block`), tile first (`reversed`), one with a
    fix-pipe configuration no parameter uses (`config`), else the main one."""
    kinds = {o.name: o.kind for o in [*op.spec.operands, *form.own]}
    carried = [kinds.get(str(p.operand)) for p in form.params if not p.events]
    if "global" in carried:
        return "gm"
    if "scalar" in carried:
        return "sub_block"
    if carried and carried[0] == "tile":
        return "reversed"
    used = {str(p.type) for p in form.params}
    return "config" if any(t.kind == "typename" and t.name not in used for t in form.template) else "main"


class Pipe(NamesOperand):
    name: ClassVar[str] = "pipe"
    # The forms take other template parameters than the main one (a TConfig instead of a Split) and
    # other operands (a tensor instead of a tile), and the tests call each form in cases of its own;
    # the expression names the pipe, state the cores share.
    facts: ClassVar[KindFacts] = KindFacts(overloads_keep_values=False, plans_forms=True, reads_groups=True)
    domain_starts: ClassVar[tuple[str, ...]] = (PIPE_DOMAIN,)

    # ----------------------------------------------------------------- import
    def recognise(self, page: PageOp) -> int | None:
        # Its own domain paragraph, or (a page without it) a pipe among the operands; either outranks
        # the other operands' evidence (a pipe and a GlobalTensor would otherwise read as a hint's page).
        pipe = any(t.startswith("!pto.pipe") for t in page.operand_types)
        return OPERANDS if page.intro.startswith(PIPE_DOMAIN) or pipe else None

    def import_domain(self, operands: list[dict[str, Any]]) -> str | None:
        # What the op writes (the pipe, the popped tile, the bound tensor); a register setter's operand.
        written = next((o["name"] for o in operands if o["role"] == "dst"), None)
        return written or next((o["name"] for o in operands), None)

    def import_formulas(self, math: str) -> list[tuple[str | None, str]]:
        # `math`'s arrow: the right side is what the op moves (the expression).
        m = re.fullmatch(r"(\\mathrm\{[^}]*\}) \\leftarrow (\\mathrm\{[^}]*\})", math)
        return [(None, m.group(2))] if m else [(None, math)]

    def complete_import(self, semantics: dict[str, Any], operands: list[dict[str, Any]]) -> None:
        # The roles follow from what the op moves, as `step` reads them: the pipe is written when it
        # is not what moves (a push, a free), else the tile or tensor is (a pop, an allocation). A
        # page without an operand table takes the first parameter for the destination; a register
        # setter writes no operand.
        pipe = next((o for o in operands if o["kind"] == "context"), None)
        data = [o for o in operands if o["kind"] != "context"]
        if pipe is None:
            for o in data:
                o["role"] = "src" if o["role"] == "dst" else o["role"]
            return
        written = data[0] if data and semantics["expr"] == pipe["name"] else pipe
        for o in [pipe, *data]:
            o["role"] = "dst" if o is written else "src" if o["kind"] != "scalar" else o["role"]
        semantics["domain"] = written["name"]
        operands.sort(key=lambda o: o["role"] != "dst")

    def check_operands(self, spec: OpSpec) -> list[tuple[tuple[str | int, ...], str]]:
        pipes = [o for o in spec.operands if o.kind == "context"]
        data = [o for o in spec.operands if o.kind != "context"]
        if len(pipes) > 1 or len(data) > 1:
            return [
                (("operands",), "a pipe op has at most one pipe (`context`) and one tile, tensor or scalar")
            ]
        return []

    def writes_domain(self, spec: OpSpec) -> bool:
        # A quantisation setter writes a register of the core, not an operand.
        return step(spec) not in (QUANT_SCALAR, QUANT_VECTOR)

    # ----------------------------------------------------------------- math
    def math(self, op: OpViewAPI) -> str:
        # No element is computed: the formula says what the op moves where (the expression into the
        # domain); a free and a register setter move nothing.
        if self.step(op) not in (PUSH, POP, ALLOC):
            return ""
        return rf"{_tex(op.domain)} \leftarrow {_tex(str(op.spec.semantics.expr))}"

    def result_index(self, op: OpViewAPI) -> str:
        return ""

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        return ""

    @staticmethod
    def step(op: OpViewAPI) -> str:
        return step(op.spec)

    # ----------------------------------------------------------------- header and backend
    def own_impls(self, spec: OpSpec) -> set[str]:
        # The GridPipe forms' backend functions (GRID_TPUSH_IMPL, ...), which the simulator defines.
        intr = spec.intrinsic
        assert intr is not None or not grid_forms(spec)
        return {str(intr.overloads[k - 1].dispatch.impl) for k in grid_forms(spec)} if intr else set()

    @staticmethod
    def grid_step(op: OpViewAPI, form: FormViewAPI) -> str:
        """What a GridPipe declaration runs (`push`, `broadcast`, `pop`), or "" for a TPipe one."""
        return grid_forms(op.spec).get(form.index, "")

    def form_backend(self, op: OpViewAPI, form: FormViewAPI) -> FormBackend:
        # A form without the main declaration's Split (the reversed and TConfig forms) passes the
        # unsplit axis to the common check.
        intr = op.spec.intrinsic
        assert intr is not None
        own = {t.name for t in form.template}
        dropped = {t.name: NO_SPLIT for t in intr.template if t.kind == "value" and t.name not in own}
        dropped |= {t.name: "void" for t in intr.template if t.kind == "typename" and t.name not in own}
        # A GM form takes a tensor where the main declaration takes the tile: it stands in for it.
        takes = {str(p.operand) for p in form.params}
        tensor = next((o.name for o in form.own if o.kind == "global"), None)
        stand_ins = {o.name: tensor for o in op.spec.operands if o.name not in takes and tensor is not None}
        return FormBackend(stand_ins=stand_ins, dropped=dropped)

    def sim_targs(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        """The split axis (or the fix-pipe configuration, or the quantised type) the form names,
        else the unsplit axis."""
        values = [t.name for t in form.template if t.kind == "value"]
        if values:
            return values
        if self.step(op) in (QUANT_SCALAR, QUANT_VECTOR):
            return [t.name for t in form.template if t.kind == "typename"][:1]
        # A typename no function parameter uses is the fix-pipe configuration (TConfig).
        used = {str(p.type) for p in form.params}
        config = [t.name for t in form.template if t.kind == "typename" and t.name not in used]
        return config or [NO_SPLIT]

    def sim_args(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        """The pipe first, then the tile or tensor, then an explicit sub-block id."""
        pipe = [p.name for p in form.params if not p.events and self._is_pipe(op, form, p.operand)]
        rest = [p.name for p in form.params if not p.events and not self._is_pipe(op, form, p.operand)]
        return pipe + rest

    @staticmethod
    def _is_pipe(op: OpViewAPI, form: FormViewAPI, operand: Any) -> bool:
        kinds = {o.name: o.kind for o in [*op.spec.operands, *form.own]}
        return kinds.get(str(operand)) == "context"

    # ----------------------------------------------------------------- tests
    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        on = [p.name for p in project.profiles if op.available(p.name)]
        plan = SCENARIOS[self.step(op)]
        cases = [sc.case(k, self.step(op)) for k, sc in enumerate(plan)]
        scalars = {"pre_quant_scalar": "float"} if self.step(op) == QUANT_SCALAR else {}
        tests.runtime.append(RuntimeKernel("pipes", scalars, {}, on, cases))
        if grid_forms(op.spec):
            self._plan_grid(project, op, tests, on, len(cases))
        self._plan_form_rules(project, op, tests)
        tests.includes.extend(["thread", "vector"])
        # The legal twin per profile: the first scenario's call (the rules the pages state are the
        # runtime's static_asserts, tested with the kind).
        if self.step(op) == QUANT_VECTOR:  # a tile alone: the common planner breaks its rules
            plan_rule_cases(project, op, tests)
            return
        first = plan[0]
        pipe = first.pipe_type(1)
        call = first.call(self.step(op))
        call = Call(
            [pipe if a == "P" else a for a in call.template_args],
            [repr(first.scale) + "f" if a == "pre_quant_scalar_value" else a for a in call.args],
        )
        contexts = [(pipe, "pipe")] if self.step(op) not in (QUANT_SCALAR, QUANT_VECTOR) else []
        for p in project.profiles:
            tests.compile.append(
                CompileCase.legal(
                    f"legal_{p.name.lower()}",
                    p.name,
                    first.tiles(),
                    call,
                    globals=first.globals(),
                    contexts=contexts,
                )
            )

    def _plan_grid(
        self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests, on: list[str], first: int
    ) -> None:
        """The GridPipe forms' runtime cases, on the profiles that offer them."""
        forms = grid_forms(op.spec)
        refused = {
            p
            for p in on
            for k in forms
            if any(not_offered(rv.rule) for rv in op.forms[k].rules_for(p, static=True))
        }
        cases = [sc.case(first + k, self.step(op)) for k, sc in enumerate(GRID_SCENARIOS[self.step(op)])]
        tests.runtime.append(RuntimeKernel("grid", {}, {}, [p for p in on if p not in refused], cases))
        tests.includes.append("cstring")

    def _plan_form_rules(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        """Per declaration with rules of its own and per profile: a call that breaks each rule (the
        call of a scenario that uses the declaration, its tile moved where the rule says it may not
        be), and for a GridPipe declaration the legal call where the profile offers it."""
        for form in op.forms:
            if not any(form.rules_for(p.name, static=True) for p in project.profiles):
                continue
            tiles, call, contexts = self.form_call(op, form)
            for p in project.profiles:
                rules = form.rules_for(p.name, static=True)
                offered = not any(not_offered(rv.rule) for rv in rules)
                if offered and self.grid_step(op, form):
                    tests.compile.append(
                        CompileCase.legal(
                            f"legal_{p.name.lower()}_f{form.index}",
                            p.name,
                            tiles,
                            call,
                            contexts=contexts,
                            of=f" (form {form.index})",
                        )
                    )
                # The tile under the name of the operand it is, as the rules name it.
                tile = next(o.name for o in op.spec.operands if o.kind == "tile")
                for rv in rules:
                    broken = part(rv.rule, StaticBreak).break_static(
                        BreakContext(project, op, rv, p.name), {tile: tiles[0]}
                    )
                    # A rule on a template value breaks by passing another one in its place.
                    names = [t.name for t in form.template if t.kind != "pack"]
                    targs = [broken.values.get(n, a) for n, a in zip(names, call.template_args, strict=True)]
                    tests.compile.append(
                        CompileCase.breaking(
                            f"fail_{p.name.lower()}_{rv.id}_f{form.index}",
                            p.name,
                            rv,
                            list(broken.tiles.values()),
                            Call(targs, call.args),
                            contexts=contexts,
                            on=f" (form {form.index})",
                        )
                    )

    def form_call(
        self, op: OpViewAPI, form: FormViewAPI
    ) -> tuple[list[TileDecl], Call, list[tuple[str, str]]]:
        """The tile, the call and the pipe of a compile case of one declaration: the first scenario
        that calls it, cube to vector."""
        runs = self.grid_step(op, form)
        if runs:
            grid = next(s for s in GRID_SCENARIOS[self.step(op)] if bool(s.span) == (runs == "broadcast"))
            return grid.compile_call(self.step(op))
        name = form_name(op, form)
        sc = replace(next(s for s in SCENARIOS[self.step(op)] if s.form == name), flow="c2v")
        pipe = sc.pipe_type(1)
        call = sc.call(self.step(op))
        moved = next(a for a in call.args if a in {t.name for t in sc.tiles()})
        call = Call([pipe if a == "P" else a for a in call.template_args], call.args)
        return [t for t in sc.tiles() if t.name == moved], call, [(pipe, "pipe")]

    def shaped_tile(self, op: OpViewAPI, tile: TileDecl) -> TileDecl:
        # The only tile the common planner declares, SET_QUANT_VECTOR's: a row of Scaling words.
        return replace(tile, loc="Scaling", rows=1, valid_rows=1)

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        checks: list[Check] = []
        for case in gx.group.cases:
            if "grid" in case.attrs:
                grid = GridScenario(**json.loads(case.attrs["grid"]))
                checks += grid.prepare(
                    f"{gx.op_name}/{case.index}", case.index, f"{gx.label} case {case.index}", data
                )
                continue
            sc = Scenario(**json.loads(case.attrs["scenario"]))
            checks += sc.prepare(
                f"{gx.op_name}/{case.index}", case.index, f"{gx.label} case {case.index}", data
            )
        return checks


# ------------------------------------------------------------------------- test scenarios
# A scenario is one run of a pipe between simulated cores, each core a thread of its own under its
# execution context: the cube core's tile, the vector cores' tiles, the pipe, and the declaration
# the call uses. The op's call is one step of the core on the kernel's own thread (a producer's
# push or its setup, or a consumer's pop or free); the other cores' steps run around it through
# the public intrinsics. Each consumer keeps the bytes of every tile it popped, in order.

BYTES = {"float": 4, "int32_t": 4, "uint32_t": 4, "half": 2, "uint64_t": 8}
NP = {
    "float": np.float32,
    "int32_t": np.int32,
    "uint32_t": np.uint32,
    "half": np.float16,
    "uint64_t": np.uint64,
}
# The element type a quantisation mode writes (pto/common/fixpipe.hpp).
QUANT_DTYPE = {"DEQF16": "half", "VDEQF16": "half", "F322F16": "half"}
# Column scales of the vector quantisation words: exactly representable in the 19-bit field.
VECTOR_SCALES = (0.5, 2.0, 1.5, 0.25)


def keep_bytes(got: str, data: str, count: str) -> str:
    """The C++ statement that appends `count` elements from `data` to the byte vector `got`."""
    return (
        f"{got}.insert({got}.end(), reinterpret_cast<const unsigned char*>({data}), "
        f"reinterpret_cast<const unsigned char*>({data} + {count}));"
    )


@dataclass(frozen=True)
class Scenario:
    label: str
    flow: str  # "c2v" (cube to vector) or "v2c"
    split: str  # TileSplitAxis enumerator
    dtype: str  # the producer's element type
    rows: int  # the whole tile
    cols: int
    slots: int = 2
    gm: bool = False  # the slots live in a GM buffer
    no_split_pipe: bool = False  # TPipe's IsNoSplit, with two vector cores
    quant: str = ""  # the TConfig's QuantMode_t enumerator; "" the plain push
    relu: bool = False
    scale: float = 1.0  # SET_QUANT_SCALAR's scale
    pushes: int = 1  # tiles pushed one after another (each the last plus 1)
    prod_layout: str = "RowMajor"  # the cube producer's layout
    form: str = "main"  # the declaration the steps use: main, sub_block, reversed, gm, config

    # ---- tiles
    @property
    def axis(self) -> str:
        return f"TileSplitAxis::{self.split}"

    @property
    def lanes(self) -> int:
        return 2 if self.split != "TILE_NO_SPLIT" or self.no_split_pipe else 1

    def share(self) -> tuple[int, int]:
        """(rows, cols) of one vector core's tile."""
        if self.split == "TILE_UP_DOWN":
            return self.rows // 2, self.cols
        if self.split == "TILE_LEFT_RIGHT":
            return self.rows, self.cols // 2
        return self.rows, self.cols

    @property
    def out_dtype(self) -> str:
        return QUANT_DTYPE.get(self.quant, self.dtype)

    def vec_tiles(self) -> list[str]:
        return [f"vec{i}" for i in range(self.lanes)]

    def producers(self) -> list[tuple[str, int]]:
        if self.flow == "c2v":
            return [("cube", 0)]
        return [(t, i) for i, t in enumerate(self.vec_tiles()[: 1 if self.split == "TILE_NO_SPLIT" else 2])]

    def consumers(self) -> list[tuple[str, int]]:
        return [(t, i) for i, t in enumerate(self.vec_tiles())] if self.flow == "c2v" else [("cube", 0)]

    def tiles(self) -> list[TileDecl]:
        hr, hc = self.share()
        vec_dtype = self.out_dtype if self.flow == "c2v" else self.dtype
        out = [
            TileDecl(
                "cube",
                self.dtype,
                self.rows,
                self.cols,
                self.rows,
                self.cols,
                loc="Mat",
                layout=self.prod_layout,
            )
        ]
        out += [TileDecl(t, vec_dtype, hr, hc, hr, hc) for t in self.vec_tiles()]
        if self.quant == "VDEQF16":
            out.append(TileDecl("words", "uint64_t", 1, self.cols, 1, self.cols, loc="Scaling"))
        return out

    def globals(self) -> list[GlobalDecl]:
        return [GlobalDecl("slot", self.dtype, self.rows, self.cols, self.cols)] if self.form == "gm" else []

    def pipe_type(self, flag: int) -> str:
        hr, hc = self.share()
        size = (
            f"{hr} * {hc} * sizeof({self.out_dtype})"
            if self.flow == "c2v"
            else f"{self.rows} * {self.cols} * sizeof({self.dtype})"
        )
        direction = "DIR_C2V" if self.flow == "c2v" else "DIR_V2C"
        more = ", 2, true" if self.no_split_pipe else ""
        return f"TPipe<{flag}, Direction::{direction}, {size}, {self.slots}{more}>"

    # ---- calls
    def push(self, tile: str, lane: int) -> tuple[list[str], list[str]]:
        """(template arguments, arguments) of a producer's push."""
        if self.form == "config":
            relu = ", ReluPreMode::NormalRelu" if self.relu else ""
            config = f"FixpipeParams<LayoutMode_t::NZ2ND, QuantMode_t::{self.quant}{relu}>"
            return ["P", f"Tile_{tile}", config], ["pipe", tile]
        return self.pop(tile, lane)

    def pop(self, tile: str, lane: int) -> tuple[list[str], list[str]]:
        """(template arguments, arguments) of a consumer's pop; a push without a TConfig is spelled
        the same."""
        if self.form == "reversed":
            return [f"Tile_{tile}", "P"], [tile, "pipe"]
        if self.form == "sub_block":
            return ["P", f"Tile_{tile}", self.axis], ["pipe", tile, str(lane)]
        if self.form == "gm":
            return ["P", "Global_slot", self.axis], ["pipe", "slot"]
        return ["P", f"Tile_{tile}", self.axis], ["pipe", tile]

    def free(self) -> tuple[list[str], list[str]]:
        if self.form == "reversed":
            return ["P"], ["pipe"]
        if self.form == "gm":
            return ["P", "Global_slot", self.axis], ["pipe", "slot"]
        return ["P", self.axis], ["pipe"]

    def call(self, step_: str) -> Call:
        if step_ == PUSH:
            return Call(*self.push(*self.producers()[0]))
        if step_ == POP:
            return Call(*self.pop(*self.consumers()[0]))
        if step_ == FREE:
            return Call(*self.free())
        if step_ == ALLOC:
            return Call(["P", "Global_slot", self.axis], ["pipe", "slot"])
        if step_ == QUANT_SCALAR:
            return Call([self.out_dtype], ["pre_quant_scalar_value"])
        return Call(["Tile_words"], ["words"])

    # ---- the kernel
    def case(self, k: int, step_: str) -> RuntimeCase:
        tiles = self.tiles()
        addresses: dict[str, int] = {}
        used: dict[str, int] = {}
        for t in tiles:
            addresses[t.name] = used.get(t.loc, 0)
            used[t.loc] = addresses[t.name] + t.rows * t.cols * BYTES[t.dtype]
        before, after = self.code(k, step_)
        size = {t.name: t.rows * t.cols * BYTES[t.dtype] for t in tiles}
        stored = [(f"c{k}_{t}.pop", f"got_{t}.data()", self.pushes * size[t]) for t, _ in self.consumers()]
        # The producers' tiles after the run: a push reads its tile and leaves it alone.
        units = {t.name: t.rows * t.cols for t in tiles}
        stored += [(f"c{k}_{t}.kept", f"{t}.data()", units[t]) for t, _ in self.producers()]
        scalars: dict[str, float | int] = {"pre_quant_scalar": self.scale} if step_ == QUANT_SCALAR else {}
        return RuntimeCase(
            k,
            self.label,
            tiles,
            scalars,
            self.call(step_),
            addresses,
            attrs={"scenario": json.dumps(asdict(self), sort_keys=True)},
            globals=self.globals(),
            before_call=before,
            after_call=after,
            stored=stored,
            forms=[],
        )

    def code(self, k: int, step_: str) -> tuple[list[str], list[str]]:
        """C++ statements before and after the call: the pipe, the other cores' threads, the joins."""
        spell = {"push": self.push, "pop": self.pop}

        def stmt(name: str, call: tuple[list[str], list[str]]) -> str:
            return f"{name}<{', '.join(call[0])}>({', '.join(call[1])});"

        def kept(tile: str) -> str:
            data = "slot.data()" if self.form == "gm" else f"{tile}.data()"
            count = f"{self.rows * self.cols}" if self.form == "gm" else f"{tile}.Numel"
            return keep_bytes(f"got_{tile}", data, count)

        def produce(tile: str, lane: int, first: int) -> list[str]:
            out: list[str] = []
            for i in range(first, self.pushes):
                if i:
                    out.append(f"for (int e = 0; e < {tile}.Numel; ++e) {tile}.data()[e] += 1;")
                if self.form == "gm":
                    out += [f"TALLOC<P, Global_slot, {self.axis}>(pipe, slot);", f"TSTORE(slot, {tile});"]
                out.append(stmt("TPUSH", spell["push"](tile, lane)))
            return out

        def consume(tile: str, lane: int, first: int) -> list[str]:
            out: list[str] = []
            for _ in range(first, self.pushes):
                out += [stmt("TPOP", spell["pop"](tile, lane)), kept(tile), stmt("TFREE", self.free())]
            return out

        b = [f"using P = {self.pipe_type(20 + k)};", "P::reset_for_cpu_sim();"]
        if self.gm:
            b += [
                f"std::vector<unsigned char> slots(({self.slots} + 1) * P::LOCAL_SLOT_STORAGE_SIZE);",
                "P pipe(slots.data(), 0x0, 0x0);",
            ]
        else:
            b.append("P pipe(nullptr, 0x0, 0x0);")
        b += [f"std::vector<unsigned char> got_{t};" for t, _ in self.consumers()]
        if self.quant in ("DEQF16", "F322F16") and step_ != QUANT_SCALAR:
            b.append(f"SET_QUANT_SCALAR<{self.out_dtype}>({self.scale!r}f);")
        if self.quant == "VDEQF16" and step_ != QUANT_VECTOR:
            b.append("SET_QUANT_VECTOR(words);")
        producing = step_ in (PUSH, ALLOC, QUANT_SCALAR, QUANT_VECTOR)
        mine = self.producers()[0] if producing else self.consumers()[0]
        others = [(t, lane, True) for t, lane in self.producers() if (t, lane) != mine or not producing]
        others += [(t, lane, False) for t, lane in self.consumers() if (t, lane) != mine or producing]
        dim_of = {
            True: 2 if self.flow == "v2c" and self.lanes == 2 else 1,
            False: 2 if self.flow == "c2v" and self.lanes == 2 else 1,
        }
        names = []
        for t, lane, prod in others:
            name = f"{'producer' if prod else 'consumer'}_{t}"
            names.append(name)
            body = produce(t, lane, 0) if prod else consume(t, lane, 0)
            b += [
                f"std::thread {name}([&] {{",
                f"    cpu_sim::ScopedExecutionContext core(0, {lane}, {dim_of[prod]});",
            ]
            b += ["    " + x for x in body] + ["});"]
        b.append(f"cpu_sim::ScopedExecutionContext core(0, {mine[1]}, {dim_of[producing]});")
        after: list[str] = []
        tile, lane = mine
        if step_ == PUSH:
            if self.form == "gm":
                b += [f"TALLOC<P, Global_slot, {self.axis}>(pipe, slot);", f"TSTORE(slot, {tile});"]
            after += produce(tile, lane, 1)
        elif step_ == ALLOC:
            after += [
                f"TSTORE(slot, {tile});",
                stmt("TPUSH", (["P", "Global_slot", self.axis], ["pipe", "slot"])),
            ]
        elif step_ in (QUANT_SCALAR, QUANT_VECTOR):
            after += produce(tile, lane, 0)
        elif step_ == POP:
            after += [kept(tile), stmt("TFREE", self.free()), *consume(tile, lane, 1)]
        else:  # FREE
            b += [stmt("TPOP", self.pop(tile, lane)), kept(tile)]
            after += consume(tile, lane, 1)
        after += [f"{n}.join();" for n in names]
        return b, after

    # ---- goldens
    def prepare(self, seed: str, k: int, label: str, data: Path) -> list[Check]:
        arrays: dict[str, np.ndarray] = {}
        for t in self.tiles():
            dt = np.dtype(NP[t.dtype])
            if t.name == "words":
                arrays[t.name] = np.array(
                    [vector_word(VECTOR_SCALES[j % len(VECTOR_SCALES)]) for j in range(t.cols)],
                    dtype=np.uint64,
                )
            else:
                arrays[t.name] = inputs(dt, t.rows * t.cols, f"{seed}/{t.name}")
            arrays[t.name].tofile(data / f"c{k}_{t.name}.bin")
        if self.form == "gm":
            np.zeros(self.rows * self.cols, dtype=NP[self.dtype]).tofile(data / f"c{k}_slot.bin")
        if self.form == "config":
            np.array([self.scale], dtype=np.float32).tofile(data / f"c{k}_pre_quant_scalar.bin")
        whole = self.whole(arrays)
        checks: list[Check] = []
        hr, hc = self.share()
        for name, lane in self.consumers():
            pops = []
            for i in range(self.pushes):
                w = self.converted(whole + np.asarray(i, dtype=whole.dtype) if i else whole, arrays)
                if self.flow == "c2v":
                    r0 = lane * hr if self.split == "TILE_UP_DOWN" else 0
                    c0 = lane * hc if self.split == "TILE_LEFT_RIGHT" else 0
                    part = w[r0 : r0 + hr, c0 : c0 + hc]
                    if self.no_split_pipe and lane:
                        part = np.zeros_like(part)
                    pops.append(part.reshape(-1))
                else:
                    pops.append(w.reshape(-1))
            want = np.concatenate(pops)
            what = f"{label} ({self.label}), {name}"
            checks.append(same_bits(f"c{k}_{name}.pop", want, what, f"popped {name}"))
        for name, _ in self.producers():
            bumped = arrays[name] + np.asarray(self.pushes - 1, dtype=arrays[name].dtype)
            after = bumped if self.pushes > 1 else arrays[name]  # + 0 would turn -0.0 into 0.0
            what = f"{label} ({self.label}), {name} after the pushes"
            checks.append(same_bits(f"c{k}_{name}.kept", after, what, f"pushed {name}"))
        return checks

    def whole(self, arrays: dict[str, np.ndarray]) -> np.ndarray:
        """The whole tile the producers pushed, as a matrix."""
        if self.flow == "c2v":
            return logical(arrays["cube"], self.rows, self.cols, self.prod_layout)
        hr, hc = self.share()
        halves = [arrays[t].reshape(hr, hc) for t, _ in self.producers()]
        if self.split == "TILE_NO_SPLIT":
            return halves[0]
        return np.concatenate(halves, axis=0 if self.split == "TILE_UP_DOWN" else 1)

    def converted(self, x: np.ndarray, arrays: dict[str, np.ndarray]) -> np.ndarray:
        """What the fix-pipe writes for x (upstream's simulator's arithmetic, pto/cpu/pipe.hpp)."""
        if not self.quant:
            return x
        y = x.astype(np.float32)
        if self.quant == "VDEQF16":
            scales = np.array(
                [VECTOR_SCALES[j % len(VECTOR_SCALES)] for j in range(self.cols)], dtype=np.float32
            )
            y = y * scales[np.newaxis, :]
        else:
            y = y * np.float32(self.scale)
        if self.quant in ("DEQF16", "VDEQF16"):
            y = np.clip(y, np.float32(-65504.0), np.float32(65504.0))
        if self.relu:
            y = np.where(y > 0, y, np.float32(0.0))
        with np.errstate(over="ignore"):  # beyond half's range is infinity, as in C++
            return y.astype(np.float16)


def vector_word(scale: float) -> int:
    """A quantisation word whose bits 13..31 hold `scale` (sign, 8-bit exponent, 10-bit fraction)."""
    m, e = np.frexp(scale)  # scale = m * 2**e, 0.5 <= m < 1
    exponent = int(e) - 1 + 127
    fraction = int(round((float(m) * 2 - 1) * 1024))
    return ((exponent << 10) | fraction) << 13


# ------------------------------------------------------------------------- GridPipe scenarios
# A grid of cores, each a thread under its block index, each with its own window of one arena. Every
# core that can pushes `pushes` tiles (each the last plus 1) `dist` hops along `direction`, then pops
# what the core `dist` hops the other way pushed; a broadcast's source pushes once along its span,
# and every other core of the span pops it from its own distance; a SOURCE pop takes the tiles the
# host put in the core's window before the launch. The op's call is one step of the kernel thread's
# core (`me`); the other cores run on threads of their own.
GRID_ARMS = {"ROW": ("EAST", "WEST"), "COL": ("NORTH", "SOUTH")}
GRID_STEP = {"NORTH": (-1, 0), "EAST": (0, 1), "WEST": (0, -1), "SOUTH": (1, 0)}


@dataclass(frozen=True)
class GridScenario:
    label: str
    rows: int  # of the grid
    cols: int
    direction: str  # GridDirection enumerator; "" for a broadcast
    dist: int = 1
    span: str = ""  # GridSpan enumerator of a broadcast
    source: int = 0  # the broadcast's source rank
    dtype: str = "float"
    tile_rows: int = 8
    tile_cols: int = 16
    slots: int = 2
    pushes: int = 1

    @property
    def ranks(self) -> int:
        return self.rows * self.cols

    def coord(self, rank: int) -> tuple[int, int]:
        return divmod(rank, self.cols)

    def along(self, rank: int, direction: str, k: int) -> int | None:
        """The rank k hops along `direction` from `rank`, or None off the grid."""
        r, c = self.coord(rank)
        dr, dc = GRID_STEP[direction]
        r, c = r + k * dr, c + k * dc
        return r * self.cols + c if 0 <= r < self.rows and 0 <= c < self.cols else None

    def feeds(self, rank: int) -> list[tuple[int | None, str, int]]:
        """What `rank` pops, in order: (producer rank, None for the host; direction; distance)."""
        if self.direction == "SOURCE":
            return [(None, "SOURCE", 1)] * self.pushes
        if self.span:
            for arm in GRID_ARMS[self.span]:
                for k in range(1, max(self.rows, self.cols)):
                    if self.along(self.source, arm, k) == rank:
                        return [(self.source, arm, k)]
            return []
        back = {"NORTH": "SOUTH", "SOUTH": "NORTH", "EAST": "WEST", "WEST": "EAST"}[self.direction]
        producer = self.along(rank, back, self.dist)
        return [] if producer is None else [(producer, self.direction, self.dist)] * self.pushes

    def pushes_of(self, rank: int) -> int:
        if self.direction == "SOURCE":
            return 0
        if self.span:
            return 1 if rank == self.source else 0
        return self.pushes if self.along(rank, self.direction, self.dist) is not None else 0

    def me(self, step_: str) -> int:
        """The kernel thread's core: the first that pushes (a push), or that pops (a pop)."""
        busy = self.pushes_of if step_ == PUSH else (lambda r: len(self.feeds(r)))
        return next(r for r in range(self.ranks) if busy(r))

    def tiles(self) -> list[TileDecl]:
        rc = (self.tile_rows, self.tile_cols)
        out = [TileDecl(f"send{r}", self.dtype, *rc, *rc) for r in range(self.ranks) if self.pushes_of(r)]
        out += [TileDecl(f"recv{r}", self.dtype, *rc, *rc) for r in range(self.ranks) if self.feeds(r)]
        if self.direction == "SOURCE":
            out.append(
                TileDecl(
                    "host",
                    self.dtype,
                    self.pushes * self.tile_rows,
                    self.tile_cols,
                    self.pushes * self.tile_rows,
                    self.tile_cols,
                )
            )
        return out

    def tile_bytes(self) -> int:
        return self.tile_rows * self.tile_cols * BYTES[self.dtype]

    def push(self, rank: int) -> tuple[list[str], list[str]]:
        if self.span:
            return [f"GridSpan::{self.span}", "P", f"Tile_send{rank}"], [f"pipes[{rank}]", f"send{rank}"]
        return (
            [f"GridDirection::{self.direction}", str(self.dist), "P", f"Tile_send{rank}"],
            [f"pipes[{rank}]", f"send{rank}"],
        )

    def pop(self, rank: int, direction: str, dist: int) -> tuple[list[str], list[str]]:
        return [f"GridDirection::{direction}", str(dist), "P", f"Tile_recv{rank}"], [
            f"pipes[{rank}]",
            f"recv{rank}",
        ]

    def call(self, step_: str) -> Call:
        me = self.me(step_)
        if step_ == PUSH:
            return Call(*self.push(me))
        _, direction, dist = self.feeds(me)[0]
        return Call(*self.pop(me, direction, dist))

    def compile_call(self, step_: str) -> tuple[list[TileDecl], Call, list[tuple[str, str]]]:
        """The tile, the call and the pipe of the kernel core's step, for a compile case."""
        call = self.call(step_)
        tile = call.args[1]
        pipe = f"GridPipe<Tile_{tile}, {self.tile_bytes()}, {self.slots}>"
        tiles = [t for t in self.tiles() if t.name == tile]
        targs = [pipe if a == "P" else a for a in call.template_args]
        return tiles, Call(targs, ["pipe", tile]), [(pipe, "pipe")]

    def case(self, k: int, step_: str) -> RuntimeCase:
        tiles = self.tiles()
        addresses: dict[str, int] = {}
        used = 0
        for t in tiles:
            addresses[t.name] = used
            used += t.rows * t.cols * BYTES[t.dtype]
        size = self.tile_bytes()
        before, after = self.code(step_)
        stored = [
            (f"c{k}_recv{r}.pop", f"got{r}.data()", len(self.feeds(r)) * size)
            for r in range(self.ranks)
            if self.feeds(r)
        ]
        units = self.tile_rows * self.tile_cols
        stored += [
            (f"c{k}_send{r}.kept", f"send{r}.data()", units) for r in range(self.ranks) if self.pushes_of(r)
        ]
        return RuntimeCase(
            k,
            self.label,
            tiles,
            {},
            self.call(step_),
            addresses,
            attrs={"grid": json.dumps(asdict(self), sort_keys=True)},
            before_call=before,
            after_call=after,
            stored=stored,
            forms=[],
        )

    def code(self, step_: str) -> tuple[list[str], list[str]]:
        """The windows, the pipes, the other cores' threads; after the call, the kernel core's rest
        and the joins."""

        def stmt(name: str, call: tuple[list[str], list[str]]) -> str:
            return f"{name}<{', '.join(call[0])}>({', '.join(call[1])});"

        def pushes(rank: int, first: int) -> list[str]:
            out: list[str] = []
            for i in range(first, self.pushes_of(rank)):
                if i:
                    out.append(f"for (int e = 0; e < send{rank}.Numel; ++e) send{rank}.data()[e] += 1;")
                out.append(stmt("TPUSH", self.push(rank)))
            return out

        def pops(rank: int, first: int) -> list[str]:
            out: list[str] = []
            for _, direction, dist in self.feeds(rank)[first:]:
                out += [
                    stmt("TPOP", self.pop(rank, direction, dist)),
                    keep_bytes(f"got{rank}", f"recv{rank}.data()", f"recv{rank}.Numel"),
                ]
            return out

        size = self.tile_bytes()
        first_send = (
            next(f"Tile_send{r}" for r in range(self.ranks) if self.pushes_of(r))
            if any(self.pushes_of(r) for r in range(self.ranks))
            else f"Tile_recv{self.me(POP)}"
        )
        b = [
            f"using P = GridPipe<{first_send}, {size}, {self.slots}>;",
            "constexpr std::uint32_t window = a2a3_grid::WindowBytes<P>();",
            f"std::vector<std::uint8_t> windows({self.ranks} * window);",
            f"GmSramArena arena{{reinterpret_cast<std::uint64_t>(windows.data()), window, {self.ranks}}};",
            f"const GridShape shape{{{self.rows}, {self.cols}}};",
            f"std::vector<P> pipes({self.ranks});",
            f"for (int r = 0; r < {self.ranks}; ++r)",
            "    a2a3_grid::InitGridPipeFromWindow(pipes[r], shape, GridCoord{r / shape.gridCols, "
            "r % shape.gridCols}, windows.data() + r * window, &arena, 0);",
        ]
        if self.direction == "SOURCE":  # the host's queue of core 0, filled before the launch
            b += [
                "std::memcpy(windows.data() + a2a3_grid::kDirSlotRegionOffset<P::SlotBytes, P::SlotCount>("
                f"GridDirection::SOURCE), host.data(), {self.pushes * size});",
                f"reinterpret_cast<std::uint32_t*>(windows.data())[0] = {self.pushes};",
            ]
        b += [f"std::vector<unsigned char> got{r};" for r in range(self.ranks) if self.feeds(r)]
        me = self.me(step_)
        names = []
        for r in range(self.ranks):
            body = pushes(r, 0) + pops(r, 0) if r != me else []
            if not body:
                continue
            names.append(f"core{r}")
            b += [f"std::thread core{r}([&] {{", f"    cpu_sim::ScopedExecutionContext core({r}, 0, 1);"]
            b += ["    " + x for x in body] + ["});"]
        b.append(f"cpu_sim::ScopedExecutionContext core({me}, 0, 1);")
        if step_ == PUSH:
            after = pushes(me, 1) + pops(me, 0)
        else:
            b += pushes(me, 0)
            after = [x for x in pops(me, 0)[1:2]] + pops(me, 1)
        after += [f"{n}.join();" for n in names]
        return b, after

    def prepare(self, seed: str, k: int, label: str, data: Path) -> list[Check]:
        dt = np.dtype(NP[self.dtype])
        units = self.tile_rows * self.tile_cols
        arrays: dict[str, np.ndarray] = {}
        for t in self.tiles():
            arrays[t.name] = inputs(dt, t.rows * t.cols, f"{seed}/{t.name}")
            arrays[t.name].tofile(data / f"c{k}_{t.name}.bin")
        checks: list[Check] = []
        for r in range(self.ranks):
            feeds = self.feeds(r)
            if not feeds:
                continue
            got = []
            for i, (producer, _, _) in enumerate(feeds):
                if producer is None:
                    got.append(arrays["host"][i * units : (i + 1) * units])
                else:
                    sent = arrays[f"send{producer}"]
                    got.append(sent + np.asarray(i, dtype=dt) if i else sent)
            what = f"{label} ({self.label}), core {r}"
            checks.append(same_bits(f"c{k}_recv{r}.pop", np.concatenate(got), what, f"popped by core {r}"))
        for r in range(self.ranks):
            n = self.pushes_of(r)
            if n:
                sent = arrays[f"send{r}"]
                after = sent + np.asarray(n - 1, dtype=dt) if n > 1 else sent
                what = f"{label} ({self.label}), core {r} after its pushes"
                checks.append(same_bits(f"c{k}_send{r}.kept", after, what, f"pushed by core {r}"))
        return checks


G = GridScenario
GRID_SCENARIOS: dict[str, list[GridScenario]] = {
    PUSH: [
        G(
            "GridPipe: one hop east along a row of four, three tiles through two slots",
            1,
            4,
            "EAST",
            dtype="uint32_t",
            pushes=3,
        ),
        G(
            "GridPipe: two hops south in a 3 x 2 grid, one slot",
            3,
            2,
            "SOUTH",
            dist=2,
            dtype="int32_t",
            slots=1,
            pushes=2,
        ),
        G("GridPipe broadcast along a row of four from core 1", 1, 4, "", span="ROW", source=1),
        G(
            "GridPipe broadcast along a column of three from core 2",
            3,
            1,
            "",
            span="COL",
            source=2,
            dtype="uint32_t",
        ),
    ],
    POP: [
        G("GridPipe: one hop west along a row of three", 1, 3, "WEST", dtype="int32_t", pushes=2),
        G(
            "GridPipe: one hop north in a 2 x 2 grid, three tiles through one slot",
            2,
            2,
            "NORTH",
            dtype="uint32_t",
            slots=1,
            pushes=3,
        ),
        G("GridPipe: from the host's queue (SOURCE)", 1, 1, "SOURCE", pushes=2),
    ],
}

S = Scenario
SCENARIOS: dict[str, list[Scenario]] = {
    PUSH: [
        S("cube to vector, one vector core", "c2v", "TILE_NO_SPLIT", "float", 16, 16),
        S(
            "cube to vector, rows split, GM slots, column-major cube tile",
            "c2v",
            "TILE_UP_DOWN",
            "float",
            16,
            16,
            gm=True,
            prod_layout="ColMajor",
        ),
        S(
            "vector to cube, columns split, sub-block ids given",
            "v2c",
            "TILE_LEFT_RIGHT",
            "float",
            16,
            16,
            form="sub_block",
        ),
        S(
            "tile first, three tiles through a one-slot ring",
            "c2v",
            "TILE_NO_SPLIT",
            "uint32_t",
            8,
            8,
            slots=1,
            pushes=3,
            form="reversed",
        ),
        S(
            "fix-pipe F322F16 with ReLU",
            "c2v",
            "TILE_NO_SPLIT",
            "float",
            16,
            16,
            quant="F322F16",
            relu=True,
            form="config",
        ),
        S("GM form, after TALLOC", "c2v", "TILE_NO_SPLIT", "float", 16, 16, gm=True, form="gm"),
    ],
    POP: [
        S("cube to vector, columns split", "c2v", "TILE_LEFT_RIGHT", "float", 16, 16),
        S("vector to cube, rows split", "v2c", "TILE_UP_DOWN", "float", 16, 16),
        S(
            "no-split pipe, two vector cores: the second gets zeros",
            "c2v",
            "TILE_NO_SPLIT",
            "float",
            16,
            16,
            no_split_pipe=True,
        ),
        S("tile first", "c2v", "TILE_NO_SPLIT", "int32_t", 16, 16, form="reversed"),
        S("rows split, sub-block ids given", "c2v", "TILE_UP_DOWN", "float", 16, 16, form="sub_block"),
        S("GM form", "c2v", "TILE_NO_SPLIT", "float", 16, 16, gm=True, form="gm"),
    ],
    FREE: [
        S("three tiles through a one-slot ring", "c2v", "TILE_NO_SPLIT", "uint32_t", 8, 8, slots=1, pushes=3),
        S(
            "without a split axis",
            "c2v",
            "TILE_NO_SPLIT",
            "uint32_t",
            8,
            8,
            slots=1,
            pushes=2,
            form="reversed",
        ),
        S("GM form", "c2v", "TILE_NO_SPLIT", "uint32_t", 8, 8, slots=1, pushes=2, gm=True, form="gm"),
        S("four tiles through a two-slot ring", "c2v", "TILE_NO_SPLIT", "uint32_t", 8, 16, slots=2, pushes=4),
        S("vector to cube, two tiles", "v2c", "TILE_NO_SPLIT", "uint32_t", 16, 16, slots=1, pushes=2),
    ],
    ALLOC: [
        S("GM slot, written through the tensor", "c2v", "TILE_NO_SPLIT", "float", 16, 16, gm=True, form="gm"),
        S("GM slot, 8 rows", "c2v", "TILE_NO_SPLIT", "float", 8, 16, gm=True, form="gm"),
        S("GM slot, int32_t", "c2v", "TILE_NO_SPLIT", "int32_t", 16, 16, gm=True, form="gm"),
        S("GM slot, 32 columns", "c2v", "TILE_NO_SPLIT", "float", 8, 32, gm=True, form="gm"),
        S("GM slot, half", "c2v", "TILE_NO_SPLIT", "half", 16, 16, gm=True, form="gm"),
    ],
    QUANT_SCALAR: [
        S(
            "DEQF16, scale 0.5",
            "c2v",
            "TILE_NO_SPLIT",
            "int32_t",
            16,
            16,
            quant="DEQF16",
            scale=0.5,
            form="config",
        ),
        S(
            "DEQF16, scale 3",
            "c2v",
            "TILE_NO_SPLIT",
            "int32_t",
            16,
            16,
            quant="DEQF16",
            scale=3.0,
            form="config",
        ),
        S(
            "DEQF16, scale 0.25",
            "c2v",
            "TILE_NO_SPLIT",
            "int32_t",
            8,
            16,
            quant="DEQF16",
            scale=0.25,
            form="config",
        ),
        S(
            "DEQF16, scale 1.5",
            "c2v",
            "TILE_NO_SPLIT",
            "int32_t",
            8,
            16,
            quant="DEQF16",
            scale=1.5,
            form="config",
        ),
    ],
    QUANT_VECTOR: [
        S(
            "VDEQF16, a scale per column",
            "c2v",
            "TILE_NO_SPLIT",
            "int32_t",
            16,
            16,
            quant="VDEQF16",
            form="config",
        ),
        S(
            "VDEQF16, eight rows",
            "c2v",
            "TILE_NO_SPLIT",
            "int32_t",
            8,
            16,
            quant="VDEQF16",
            form="config",
        ),
        S(
            "VDEQF16, 32 columns",
            "c2v",
            "TILE_NO_SPLIT",
            "int32_t",
            16,
            32,
            quant="VDEQF16",
            form="config",
        ),
    ],
}
