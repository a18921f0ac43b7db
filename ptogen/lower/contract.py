"""What the lowering asks of an op kind: its math as the documentation writes it and the golden
reference evaluates it (`KindMath`), and how the header, the dispatch and the CPU simulator call
its forms (`KindBackend`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from ..kind_api import FormViewAPI, OpViewAPI
    from ..spec.model import OpSpec


class KindMath:
    """An op kind's iteration domain and index notation (lower/docs.py, lower/testcalls.py)."""

    def region_source(self, op: OpViewAPI) -> str:
        """The source tile whose valid region the op walks (reductions: the one their term reads)."""
        return self.region(op)

    def region(self, op: OpViewAPI) -> str:
        """The tile whose valid region the op iterates (the destination, unless the kind says)."""
        return op.spec.semantics.domain

    def math(self, op: OpViewAPI) -> str | None:
        """LaTeX of the op's semantics when the kind does not write it as `dst = expr` (a binding)."""
        return None

    def result_index(self, op: OpViewAPI) -> str:
        """LaTeX index of one result element, e.g. `i,j` (tile) or `i` (lane, row reduction)."""
        raise NotImplementedError

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        """LaTeX index of an operand element as the math reads it."""
        raise NotImplementedError

    def reduce_index(self, op: OpViewAPI) -> str | None:
        """LaTeX index a reduction in the expression runs over (None: the kind does not reduce)."""
        return None

    def reduce_axis(self, op: OpViewAPI) -> int | None:
        """numpy axis a reduction folds over (None: the kind does not reduce)."""
        return None


@dataclass(frozen=True)
class FormBackend:
    """What the lowering needs to know of one form beyond its declaration, as its kind states it
    (`KindBackend.form_backend`); every default is the plain case."""

    # The operand that plays a main-declaration operand this form drops (TMATMUL_ACC's in-place form
    # reads its destination for the accumulator input); a dropped operand not named here is an error.
    stand_ins: Mapping[str, str] = field(default_factory=dict)
    # What the form passes to the op's common check for a main template parameter it lacks (SYNCALL's
    # hardware form passes `SyncAllMode::Hard` and `void` for the workspace type).
    dropped: Mapping[str, str] = field(default_factory=dict)
    # The enum under which the CPU backend's `_IMPL` takes a value template parameter the declaration
    # types `auto` (TQUANT's `quant_type`, `mx_alg`), so that the overloads of its `_IMPL` stay apart
    # as upstream's do.
    auto_types: Mapping[str, str] = field(default_factory=dict)
    # A C++ condition on the form's types under which it runs without the profile's rules (which
    # cannot speak about those types); None: it is always checked.
    unchecked_when: str | None = None
    # Operands the form passes as GlobalTensors where the main declaration takes tiles (MGATHER's
    # GM -> L1 forms, their index): the pages show no tile facts for them, and the op's common rules,
    # which speak of tiles, are not the form's.
    global_operands: tuple[str, ...] = ()


@dataclass(frozen=True)
class LaneFold:
    """How a vector op's builtin folds the active lanes of spans of its source into fewer result lanes
    (a reduction across lanes), as its kind states it (`KindBackend.lane_fold`). Such builtins are
    generated apart from the lane-wise ones (pto/vsim/reduce.hpp) over the register model's folds."""

    reducer: str  # the expression's reduction: sum, max or min
    term: str  # C++ of the folded term, over `<name>_v` lane values
    step: str  # the helper that folds one more term in
    span: str  # what one result folds: the whole register, a 32-byte group, a pair of lanes
    pick: bool  # the result also carries the picked lane's index (a whole-register max or min)
    widens: bool  # a 16-bit integer sum may land in the 32-bit integer of its signedness


class KindBackend:
    """How the header, the dispatch and the CPU backend treat an op kind's forms (lower/views.py,
    lower/dispatch.py, templates/cpp/); every default is the plain case, and a kind overrides only
    what its forms need."""

    name: ClassVar[str]
    # Why a form that `unchecked_when` names runs without the profile's rules (the header says so).
    unchecked_reason: ClassVar[str] = ""

    def own_impls(self, spec: OpSpec) -> set[str]:
        """Backend functions (`<NAME>_IMPL`, by NAME) the kind's simulator defines for some of the
        op's declarations beside the op's own (TEXTRACT's ND to 2xNZ form): none by default."""
        return set()

    def variant_condition(self, op: OpViewAPI, name: str) -> str:
        """The C++ condition, over the main declaration's template types, under which a call is the
        variant `name` (one of `KindFacts.variant_names`)."""
        raise NotImplementedError(f"{self.name} ops have no variant {name!r}")

    def form_backend(self, op: OpViewAPI, form: FormViewAPI) -> FormBackend:
        """What the lowering needs to know of a form beyond its declaration (default: nothing)."""
        return FormBackend()

    def unchecked_when(self, op: OpViewAPI, form: FormViewAPI) -> str | None:
        """The form's `FormBackend.unchecked_when`, as the header template reads it."""
        return self.form_backend(op, form).unchecked_when

    def sim_targs(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        """Template arguments the CPU backend's `_IMPL` passes to the simulator function of a form."""
        return []

    def sim_args(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        """Arguments the CPU backend's `_IMPL` passes to the simulator function of a form."""
        return form.impl_args

    def lane_fold(self, op: OpViewAPI) -> LaneFold | None:
        """How the op's vector builtin folds lanes into fewer results (None: one result per lane)."""
        return None

    def form_changes_result(self, op: OpViewAPI, form: FormViewAPI) -> bool:
        """Whether a form without its own `expr`, called with its test values, computes something
        other than the main form (TSTORE's atomic and ReLU modes); such a form gets its own golden."""
        return False

