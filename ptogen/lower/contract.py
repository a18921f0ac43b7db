"""What the lowering asks of an op kind: its math as the documentation writes it and the golden
reference evaluates it (`KindMath`), and how the header, the dispatch and the CPU simulator call
its forms (`KindBackend`)."""

from __future__ import annotations

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

    def unchecked_when(self, op: OpViewAPI, form: FormViewAPI) -> str | None:
        """A C++ condition on a form's types under which it runs without the profile's rules (which
        cannot speak about those types), or None: it is always checked."""
        return None

    def impl_value_type(self, op: OpViewAPI, form: FormViewAPI, name: str, declared: str) -> str:
        """The type under which the CPU backend's `_IMPL` takes the value template parameter `name`,
        which the declaration types `declared`: by default the same. A kind whose declarations say
        `auto` for parameters that only their backends type (TQUANT's `quant_type`, `mx_alg`) names the
        enum, so that the overloads of its `_IMPL` stay apart as upstream's do."""
        return declared

    def sim_targs(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        """Template arguments the CPU backend's `_IMPL` passes to the simulator function of a form."""
        return []

    def sim_args(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        """Arguments the CPU backend's `_IMPL` passes to the simulator function of a form."""
        return form.impl_args

    def form_changes_result(self, op: OpViewAPI, form: FormViewAPI) -> bool:
        """Whether a form without its own `expr`, called with its test values, computes something
        other than the main form (TSTORE's atomic and ReLU modes); such a form gets its own golden."""
        return False

    def stand_in(self, op: OpViewAPI, form: FormViewAPI, operand: str) -> str | None:
        """The operand that plays `operand` in a form that drops it (None: nothing does, and the
        form's body must not need it). TMATMUL_ACC's in-place form reads its destination there."""
        return None

    def dropped_template_arg(self, op: OpViewAPI, form: FormViewAPI, name: str) -> str | None:
        """What a form that lacks the main declaration's template parameter `name` (and any operand
        standing in for it) passes for it to the op's common check, or None: such a form is an error.
        SYNCALL's hardware form passes `SyncAllMode::Hard` and no workspace type."""
        return None
