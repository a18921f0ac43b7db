"""Kinds whose declarations each state their own semantics (gathers and scatters, histograms,
quantisations, random numbers): every runtime case names its declaration (`attrs["form"]`) and
calls exactly it, the golden reads the case's tiles by operand name, and the simulator function of
each form takes the form's own parameters (its value template parameters as template arguments)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..lower.contract import FormBackend
from ..opkinds.base import NamesOperand
from ..spec.kindfacts import KindFacts
from ..testing.golden import Check
from ..testing.manifest import TileShape
from ..testing.plan import Call, OpTests, RuntimeCase, RuntimeKernel, TileDecl, layout_addresses
from .regions import region_check, same_bits

if TYPE_CHECKING:
    from ..kind_api import FormViewAPI, OpViewAPI, ProjectViewAPI

WRITTEN = ("written", "unwritten")


def own_operands(op: OpViewAPI, form: FormViewAPI) -> dict[str, Any]:
    """The operands only this form takes (none for the main form)."""
    intr = op.spec.intrinsic
    assert intr is not None
    return {o.name: o for o in intr.overloads[form.index - 1].operands} if form.index else {}


def form_call(form: FormViewAPI, values: dict[str, str], scalars: dict[str, str]) -> Call:
    """A call of exactly this declaration: every template argument explicit (tiles by their test
    type `Tile_<operand>`, value parameters from `values`), scalars from `scalars`."""
    by_type = {str(p.type): str(p.operand) for p in form.params if p.type and not p.events}
    targs = [
        f"Tile_{by_type[t.name]}" if t.kind == "typename" else values[t.name]
        for t in form.template
        if t.kind != "pack"
    ]
    args = [scalars.get(str(p.operand), str(p.operand)) for p in form.params if not p.events]
    return Call(targs, args)


def written_check(
    out: str, t: TileShape, want: np.ndarray, written: np.ndarray, before: np.ndarray, label: str
) -> Check:
    """Where `written` is set the tile (as its rows x cols matrix) holds `want` bit for bit; elsewhere
    it is untouched (`regions.region_check` over a mask of written elements)."""
    return region_check(out, t, want, before, label, judge=same_bits, written=written, names=WRITTEN)


class FormsKind(NamesOperand):
    """Shared plumbing: every case names its declaration (`attrs["form"]`), the golden reads the
    case's tiles by operand name, and the simulator function of each form takes the form's own
    parameters (its value template parameters as template arguments)."""

    facts: ClassVar[KindFacts] = KindFacts(plans_forms=True)

    def result_index(self, op: OpViewAPI) -> str:
        return "i,j"

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        return "i,j"

    unchecked_reason = "a declaration other than the main one: its rules are stated, not checked"

    def form_backend(self, op: OpViewAPI, form: FormViewAPI) -> FormBackend:
        # The common check sees every main operand: a form that drops one lends it its first tile
        # source (the checked rules are scoped to the main declaration).
        names = [str(p.operand) for p in form.params if p.type and not p.events]
        stand_ins = {o.name: names[1] for o in op.operands} if len(names) > 1 else {}
        return FormBackend(stand_ins=stand_ins, unchecked_when="true" if form.index else None)

    def sim_targs(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        return [t.name for t in form.template if t.kind == "value"]

    def sim_args(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        own = own_operands(op, form)
        tmp = {o.name for o in op.spec.operands if o.role == "tmp"} | {
            n for n, o in own.items() if o.role == "tmp"
        }
        return [p.name for p in form.params if not p.events and p.operand not in tmp]

    @staticmethod
    def write(data: Path, k: int, name: str, flat: np.ndarray) -> np.ndarray:
        flat.tofile(data / f"c{k}_{name}.bin")
        return flat

    @staticmethod
    def kernel(tests: OpTests, gid: str, cases: list[RuntimeCase], on: list[str]) -> None:
        dtypes: dict[str, str] = {}
        for c in cases:
            for t in c.tiles:
                dtypes.setdefault(t.name, t.dtype)
        tests.runtime.append(RuntimeKernel(gid, dtypes, {}, on, cases))

    @staticmethod
    def case(
        project: ProjectViewAPI,
        tests: OpTests,
        pending: list[RuntimeCase],
        label: str,
        tiles: list[TileDecl],
        call: Call,
        attrs: dict[str, str],
    ) -> RuntimeCase:
        index = sum(len(k.cases) for k in tests.runtime) + len(pending)
        return RuntimeCase(index, label, tiles, {}, call, layout_addresses(project, tiles), attrs)
