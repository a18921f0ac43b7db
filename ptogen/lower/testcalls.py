"""How the generated tests call an op: each form's arguments and template arguments in a test
kernel, the scratch tiles it declares, and the numpy of the semantics for the golden reference.

One of the lowering's outputs: templates and the test planner reach it as `op.test` and
`form.test`. It reads only the op's semantic core (`kind_api.OpViewAPI`, `FormViewAPI`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..kind_api import FormViewAPI, OpViewAPI
from ..spec import expr as semantics


class OpTestView:
    """The numpy of an op's semantics, for the golden reference (`op.test`)."""

    def __init__(self, op: OpViewAPI):
        self.op = op

    @property
    def numpy_expr(self) -> str:
        return self.numpy_of(self.op.loaded.expr)

    def numpy_of(self, expr: semantics.Node) -> str:
        return semantics.to_numpy(expr, self.op.enums_of, self.op.kind.reduce_axis(self.op))


class FormTestView:
    """How a test kernel calls one form of an intrinsic (`form.test`)."""

    def __init__(self, form: FormViewAPI):
        self.form = form

    @property
    def scalar_tiles(self) -> list[dict[str, str]]:
        """Parameters passing a scalar operand as a tile: the name of the test's tile (`<param>_f<k>`),
        the main call's argument it carries and the tile operand whose type and data it copies (the
        one whose element type types the scalar in the main declaration)."""
        intr = self.form.op.spec.intrinsic
        assert intr is not None
        out = []
        for p in self.form.params:
            if not p.from_tile:
                continue
            main = next(q for q in intr.params if q.operand == p.operand)
            like = next(q.operand for q in intr.params if q.type is not None and q.type == main.dtype_of)
            out.append(
                {"name": f"{p.operand}_f{self.form.index}", "operand": str(p.operand), "like": str(like)}
            )
        return out

    def call_args(self, main_args: list[str]) -> list[str]:
        """Arguments that call this form with the values a test passes to the main form (whose
        non-pack parameters `main_args` follows); own tiles are `<name>_f<index>` scratch tiles."""
        intr = self.form.op.spec.intrinsic
        assert intr is not None
        by_operand = self.main_args_by_operand(main_args)
        own = {o.name: o for o in self.form.own}
        out = []
        for p in self.form.params:
            if p.events:
                continue
            name = str(p.operand)
            declared = p.from_tile or (name in self.form.extra_tiles and name not in own)
            if declared or (name in own and own[name].kind == "tile"):  # a tile the test declares
                out.append(f"{name}_f{self.form.index}")
            elif name in own:
                if own[name].kind == "context":  # declared by the test (a context's struct)
                    out.append(f"{name}_f{self.form.index}")
                else:
                    # A test value that names an operand of the main form takes that operand's value
                    # (TEXTRACT's second window at the first one's offsets).
                    value = self.form.test_args[name]
                    out.append(by_operand.get(value, value))
            else:
                out.append(by_operand[name])
        return out

    def main_args_by_operand(self, main_args: list[str]) -> dict[str, str]:
        """The main call's arguments (`main_args`, its non-pack parameters in order) by operand."""
        intr = self.form.op.spec.intrinsic
        assert intr is not None
        return dict(zip([str(p.operand) for p in intr.params if not p.events], main_args, strict=False))

    def template_value(self, name: str) -> str:
        """The value generated tests pass for one of this form's value template parameters: the
        overload's `test_template_args`, else its default, else the first value of its enum."""
        intr = self.form.op.spec.intrinsic
        given = (
            intr.overloads[self.form.index - 1].test_template_args
            if intr is not None and self.form.index
            else {}
        )
        t = next(t for t in self.form.template if t.name == name)
        if name in given:
            return given[name]
        if t.default is not None:
            return str(t.default)
        return f"{t.type}::{next(e.values[0] for e in self.form.op.targets.enums if e.name == t.type)}"

    def template_args(
        self,
        main_explicit: list[str],
        type_names: dict[str, str],
        main_args: list[str] | None = None,
        explicit: dict[str, str] | None = None,
    ) -> list[str]:
        """Explicit template arguments of a test call of this form: the main form's explicit values
        (`main_explicit`) for the value parameters it shares, the test values of its own, and, where
        a value parameter follows type parameters (TSTORE's `atomicType`), those types too, spelled
        by `type_names` (operand -> C++ type). Empty when every value parameter may be deduced or
        defaulted and the main form passes none; the main form's explicit values unchanged when the
        form states no test values of its own. `explicit`: value parameters the call must spell
        (a compile case breaking a rule on a defaulted one, TGATHER's `gatherType`), with their values."""
        intr = self.form.op.spec.intrinsic
        assert intr is not None
        own_call = self.form.op.kind.form_template_args(self.form, main_explicit, type_names)
        if own_call is not None:  # the kind spells its calls itself (OpKind.test_call)
            return own_call
        main_values = [t.name for t in intr.template if t.kind == "value"]
        given = dict(zip(main_values, main_explicit, strict=False))
        intr_own = dict(intr.overloads[self.form.index - 1].test_template_args) if self.form.index else {}
        spelled = {t.name for t in self.form.template}
        intr_own |= {n: v for n, v in (explicit or {}).items() if n in spelled}
        by_operand = self.main_args_by_operand(main_args or [])
        for t in self.form.template:  # an operand the main form passes as an argument (TASSIGN<Addr>)
            if t.operand is not None and t.operand in by_operand:
                intr_own[t.name] = by_operand[t.operand]
        if not intr_own:  # the form takes the main form's explicit values as they are
            return list(main_explicit)
        last = max(
            (
                i
                for i, t in enumerate(self.form.template)
                if t.kind == "value" and (t.name in given or t.name in intr_own)
            ),
            default=-1,
        )
        out = []
        for t in self.form.template[: last + 1]:
            if t.kind == "value":
                out.append(given.get(t.name) or intr_own.get(t.name) or self.template_value(t.name))
            else:
                holder = next(p for p in self.form.params if p.type == t.name and not p.events)
                # a tile only this form takes: its own declaration where the test has one (a
                # compile case's `<name>_f<k>`), else declared like the destination (cases.cpp.j2)
                name = str(holder.operand)
                own = type_names.get(f"{name}_f{self.form.index}")
                out.append(own or type_names.get(name) or type_names[self.form.op.domain])
        return out

    def value_tile(self, tiles: list[Any]) -> Any:
        """Test declaration of the value output: the destination's shape, the source's element type."""
        by_name = {t.name: t for t in tiles}
        dst = by_name[self.form.op.domain]
        src = by_name[self.form.op.kind.region_source(self.form.op)]
        return dataclasses.replace(dst, name=f"{self.form.value_output}_f{self.form.index}", dtype=src.dtype)

    @property
    def numpy_expr(self) -> str:
        assert self.form.expr is not None
        return self.form.op.test.numpy_of(self.form.expr)

    @property
    def own_results(self) -> list[str]:
        """The form's own further destinations (tiles of role dst besides the value output), as the
        test declares them: each starts with the destination's bytes and must end with the main
        form's result (its test values read the main form's window)."""
        return [
            f"{o.name}_f{self.form.index}"
            for o in self.form.own
            if o.kind == "tile" and o.role == "dst" and o.name != self.form.value_output
        ]

    @property
    def own_tiles(self) -> list[str]:
        """Scratch tiles a test passes to this form (the value output is declared on its own)."""
        tiles = [o.name for o in self.form.own if o.kind == "tile" and o.name != self.form.value_output]
        tiles += [t for t in self.form.extra_tiles if t not in tiles and t != self.form.value_output]
        return [f"{name}_f{self.form.index}" for name in tiles]
