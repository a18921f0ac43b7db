"""The strategy every op kind implements: the consumers' contracts, each defined beside the one
consumer that reads it, and what every kind has.

- `spec.kindfacts.SpecKind`: what its specs may state (`KindFacts`, data) and its spec checks;
- `importer.contract.PageReader`: how `ptogen import` recognises and reads its pages;
- `lower.contract.KindMath`: its domain and index notation (documentation, golden numpy);
- `lower.contract.KindBackend`: how the header, dispatch and simulator call its forms;
- `testing.contract.KindTests`: its test plan, calls and goldens (a planned case carries what its
  kernel needs around the call, so the kernel templates read the plan, not the kind).

A behaviour one kind has lives in that kind's module, exposed through the consumer's contract.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, ClassVar

from ..importer.contract import PageReader
from ..lower.contract import KindBackend, KindMath
from ..spec.kindfacts import SpecKind
from ..testing.contract import KindTests

if TYPE_CHECKING:
    from ..kind_api import FormViewAPI, OpViewAPI
    from ..spec.expr import Node

Job = tuple[str, str, dict[str, Any]]


class OpKind(SpecKind, PageReader, KindMath, KindBackend, KindTests):
    """An op kind: its name, whether it works lane by lane, its own templates and the files it
    renders, with the consumers' contracts."""

    name: ClassVar[str]
    # Operates on vector registers lane by lane (its functions live in pto_vec.hpp), not on tiles.
    lanes: ClassVar[bool] = False

    def template(self, part: str) -> str:
        """A template of this kind's own text: templates/opkinds/<name>/<part>."""
        return f"opkinds/{self.name}/{part}"

    def outputs(self, op: OpViewAPI) -> list[Job]:
        """Files this op contributes besides the project-wide ones (header, checks, indexes): its
        simulator (templates/opkinds/<kind>/sim.hpp.j2), both doc pages and the figure. An op that
        dispatches to another op's `_IMPL` (TRECIP to TDIVS) has no simulator of its own."""
        own = op.has_backend
        sim = [(f"include/{op.sim_header}", self.template("sim.hpp.j2"), {"op": op})] if own else []
        return [
            *sim,
            (op.doc_path, "docs/op_page.md.j2", {"op": op}),
            (op.ref_doc_path, "docs/ref_page.md.j2", {"op": op}),
            (op.figure_path, "docs/figure.svg.j2", {"op": op}),
        ]


class NamesOperand(OpKind):
    """Kinds whose expression only names the operand the op moves, views or reads (transfers,
    gathers and scatters, views, hints): it computes nothing."""

    def check_expr(self, expr: Node) -> list[str]:
        if expr.op != "name":
            return [f"a {self.name} op's expression names one operand, e.g. `src`; it computes nothing"]
        return []

    @staticmethod
    def source(op: OpViewAPI) -> str:
        return str(op.loaded.expr.value)


def operand_type(op: OpViewAPI, operand: str) -> str:
    """The template type of an operand in the main declaration (`SrcTileData`)."""
    return next(str(p.type) for p in op.forms[0].params if p.operand == operand and p.type)


def fixed_type(form: FormViewAPI, expr: str) -> str:
    """The type of a constant template argument the intrinsic fixes: its enum when it is one of
    targets.yaml's enumerators (`AtomicType::AtomicNone`), so that the adapter is the same function
    as that of a declaration passing a parameter of that enum there; else `auto`."""
    m = re.fullmatch(r"(\w+)::(\w+)", expr.strip())
    enums = {e.name: e for e in form.op.targets.enums}
    if m and m.group(1) in enums and m.group(2) in enums[m.group(1)].values:
        return m.group(1)
    return "auto"
