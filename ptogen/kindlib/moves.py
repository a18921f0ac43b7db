"""What the kinds that move elements between tiles share (moves, transposes, fills, remaps): the
element walk `dst[i, j]`, the ReLU mode their declarations may pass, and the parameter tile of the
vector path (pto/cpu/TMov.hpp, TExtract.hpp)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..opkinds.base import NamesOperand, fixed_type

if TYPE_CHECKING:
    from ..kind_api import FormViewAPI, OpViewAPI

RELU_ENUM = "ReluPreMode"
RELU_ON = "NormalRelu"

# Conversions of the plain path the CPU simulator's tests run (an accumulator's float to the
# narrower floating types and back): (source, destination).
CONVERSIONS = (("float", "half"), ("float", "bfloat16_t"), ("half", "float"))


class TileMove(NamesOperand):
    """A kind that moves a source tile's elements into a destination tile."""

    def result_index(self, op: OpViewAPI) -> str:
        return "i,j"

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        return "i,j"

    @staticmethod
    def relu(form: FormViewAPI) -> tuple[str, str]:
        """(adapter argument, test value) of the form's ReluPreMode, ReluPreMode::NoRelu if none."""
        tparams = {t.name: t for t in form.template}
        for i, expr in enumerate(form.dispatch.template_args):
            t = tparams.get(expr)
            if t is not None and t.kind == "value" and str(t.type) == RELU_ENUM:
                return expr, form.test.template_value(expr).split("::")[-1]
            if t is None and fixed_type(form, expr) == RELU_ENUM:
                return f"Fixed{i}", expr.split("::")[-1]
        return f"{RELU_ENUM}::NoRelu", "NoRelu"

    @staticmethod
    def param_tile(form: FormViewAPI) -> str | None:
        """The form's tile parameter besides the moved two (`fp`, or `tmp`, read as `fp`)."""
        main = {form.arg(form.op.domain), *(form.arg(n) for n in form.op.read_operands)}
        return next((p.name for p in form.params if p.type and not p.events and p.name not in main), None)
