"""Cross-core barriers (SYNCALL, kind `barrier`): every participating core waits until all have
arrived. The main declaration takes a GlobalTensor workspace (the Soft mode's arrival counter), a
core count and the mode (`SyncAllMode`); a further declaration is the hardware barrier without them.
The participant set (`SyncCoreType`) is a template argument with a default.

On the CPU simulator both forms wait for every core (thread) of the running LaunchKernelMultiCore
launch (pto/cpu/execution_context.hpp), bounded: a launched core that returns without arriving stops
the barrier with its call site; outside a launch they return at once. Either way the workspace is
left unchanged, as upstream's CPU simulator leaves it. The tests call every declaration with every
mode and participant set under each profile and check that the workspace's bytes are untouched; the
runtime's multi-core test runs the barrier across launched cores (under ThreadSanitizer too).

A kind of its own, not `sync`'s: it waits for the other cores of a launch over a GlobalTensor
workspace, where TSYNC orders one core's events, so the two share no backend, form or test.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ..importer.contract import OPERANDS, PageOp
from ..lower.contract import FormBackend
from ..spec.kindfacts import KindFacts
from ..testing.golden import Check, GoldenContext, inputs, same_bits
from ..testing.plan import Call, CompileCase, GlobalDecl, OpTests, RuntimeCase, RuntimeKernel
from .base import NamesOperand

if TYPE_CHECKING:
    from ..kind_api import FormViewAPI, OpViewAPI, ProjectViewAPI
    from ..spec.model import OpSpec

WORKSPACE_INT32 = 16  # one 64-byte line, as the pages ask


class Barrier(NamesOperand):
    name: ClassVar[str] = "barrier"
    # The hardware form takes no `Mode`.
    facts: ClassVar[KindFacts] = KindFacts(writes=False, plans_forms=True, overloads_keep_values=False)
    domain_starts: ClassVar[tuple[str, ...]] = ("Not applicable: no element is computed",)

    # ----------------------------------------------------------------- import
    def recognise(self, page: PageOp) -> int | None:
        # A GlobalTensor workspace and a core count; no tile, no events, no context.
        kinds = sorted(page.operand_kinds)
        return OPERANDS if not page.vector and kinds == ["global", "scalar"] else None

    def import_domain(self, operands: list[dict[str, Any]]) -> str | None:
        return next((o["name"] for o in operands if o["kind"] == "global"), None)

    def complete_import(self, semantics: dict[str, Any], operands: list[dict[str, Any]]) -> None:
        for o in operands:
            if o["name"] == semantics["domain"]:
                o["role"] = "src"  # the workspace is read and counted in, never a result
        semantics["expr"] = semantics["domain"]  # no formula: the expression names the workspace

    def check_operands(self, spec: OpSpec) -> list[tuple[tuple[str | int, ...], str]]:
        kinds = sorted(o.kind for o in spec.operands)
        if kinds != ["global", "scalar"]:
            return [(("operands",), "a barrier op has a GlobalTensor workspace and a core count")]
        return []

    # ----------------------------------------------------------------- math
    def math(self, op: OpViewAPI) -> str:
        return ""  # a barrier computes no element: the page states no formula

    def result_index(self, op: OpViewAPI) -> str:
        return ""

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        return ""

    # ----------------------------------------------------------------- header and backend
    def sim_targs(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        return [t.name for t in form.template if t.kind == "value"]

    def sim_args(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        return [p.name for p in form.params if not p.events]

    def form_backend(self, op: OpViewAPI, form: FormViewAPI) -> FormBackend:
        # The hardware form is the Hard mode and has no workspace (the common check states no rule
        # on the workspace's type, so `void` stands for it).
        intr = op.spec.intrinsic
        assert intr is not None
        mode = self.enums(op)[0]
        dropped = {t.name: "void" for t in intr.template if t.kind != "value"}
        dropped |= {
            t.name: f"{mode.name}::{mode.values[0]}"
            for t in intr.template
            if t.kind == "value" and str(t.type) == mode.name
        }
        return FormBackend(dropped=dropped)

    @staticmethod
    def enums(op: OpViewAPI) -> tuple[Any, Any]:
        """(the mode enum, the participant-set enum): the main declaration's value parameters
        without and with a default."""
        intr = op.spec.intrinsic
        assert intr is not None
        by_name = {e.name: e for e in op.targets.enums}
        mode = next(by_name[str(t.type)] for t in intr.template if t.kind == "value" and not t.default)
        cores = next(by_name[str(t.type)] for t in intr.template if t.kind == "value" and t.default)
        return mode, cores

    def calls(self, op: OpViewAPI) -> list[tuple[str, Call]]:
        """(label, call) of every declaration with every mode and participant set."""
        mode, cores = self.enums(op)
        glob = op.spec.semantics.domain
        out: list[tuple[str, Call]] = []
        for form in op.forms:
            takes = {str(p.operand) for p in form.params}
            for c in cores.values:
                if glob in takes:
                    for m in mode.values:
                        targs = [f"{mode.name}::{m}", f"{cores.name}::{c}"]
                        out.append((f"{m}, {c}, 0 cores", Call(targs, [glob, "0"])))
                    out.append(
                        (
                            f"{mode.values[-1]}, {c}, 3 cores",
                            Call([f"{mode.name}::{mode.values[-1]}", f"{cores.name}::{c}"], [glob, "3"]),
                        )
                    )
                else:
                    out.append((f"hardware form, {c}", Call([f"{cores.name}::{c}"], [])))
        return out

    # ----------------------------------------------------------------- tests
    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        glob = op.spec.semantics.domain
        on = [p.name for p in project.profiles if op.available(p.name)]
        ws = GlobalDecl(glob, "int32_t", 1, WORKSPACE_INT32, WORKSPACE_INT32)
        cases = [
            RuntimeCase(k, label, [], {}, call, globals=[ws])
            for k, (label, call) in enumerate(self.calls(op))
        ]
        tests.runtime.append(RuntimeKernel("int32_t", {glob: "int32_t"}, {}, on, cases))
        # Per profile, a legal call of each declaration and mode, one participant set each; the
        # first is the profile's legal kernel (`legal_<profile>`).
        picked = self.calls(op)[:: len(self.enums(op)[1].values)]
        for p in project.profiles:
            for i, (_, call) in enumerate(picked):
                name = f"legal_{p.name.lower()}" + (f"_{i}" if i else "")
                tests.compile.append(CompileCase.legal(name, p.name, [], call, globals=[ws]))

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        glob = gx.op.domain
        checks: list[Check] = []
        for case in gx.group.cases:
            k = case.index
            dtype = gx.np_type(gx.group.dtypes[glob])
            buf = inputs(dtype, case.globals[glob].size, f"{gx.op_name}/{k}/{glob}")
            buf.tofile(data / f"c{k}_{glob}.bin")
            label = f"{gx.label} case {k} ({case.label})"
            checks.append(same_bits(f"c{k}_{glob}.out", buf, label, "left unchanged by the barrier"))
        return checks
