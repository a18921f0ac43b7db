"""How a declaration reaches its backend: the `<NAME>_IMPL` call of upstream's pto_instr.hpp.

A spec states each declaration's dispatch once (`intrinsic.dispatch`, `overloads[k].dispatch`);
this module resolves the defaults, spells the call for the header, and derives the CPU backend's
`_IMPL` function with exactly the signature that call needs (an adapter onto the simulator's
generated function). The same resolved call is what `ptogen diff-header` compares with upstream.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

from ..opkinds.base import fixed_type

if TYPE_CHECKING:
    from ..kind_api import FormViewAPI


@dataclasses.dataclass(frozen=True)
class Call:
    """A resolved dispatch: `<impl>_IMPL<template_args>(args)` through `call` (map or direct)."""

    impl: str
    call: str
    roles: str | None
    template_args: list[str]
    args: list[str]
    # `::pto::comm::` for an op whose name another namespace's op has too: the call is qualified, as
    # upstream's is, so that argument-dependent lookup cannot find the other op's `_IMPL`
    scope: str = ""

    @property
    def function(self) -> str:
        return self.impl if self.call == "helper" else f"{self.scope}{self.impl}_IMPL"

    @property
    def statement(self) -> str:
        """The C++ statement the intrinsic runs after its events and checks (no semicolon)."""
        args = ", ".join(self.args)
        if self.call in ("direct", "helper"):
            targs = f"<{', '.join(self.template_args)}>" if self.template_args else ""
            return f"{self.function}{targs}({args})"
        macro = "MAP_INSTR_IMPL" + ("_T" if self.template_args else "") + ("_ROLES" if self.roles else "")
        head = [self.impl]
        if self.template_args:
            head.append(f"PTO_TEMPLATE_ARGS({', '.join(self.template_args)})")
        if self.roles:
            head.append(f'"{self.roles}"')
        return f"{macro}({', '.join(head + self.args)})"


def resolve(form: FormViewAPI) -> Call:
    """The form's dispatch with its defaults filled in."""
    d = form.dispatch_spec
    values = [t.name for t in form.template if t.kind == "value"]
    args = d.args if d.args is not None else [p.name for p in form.params if not p.events]
    targs = d.template_args if d.template_args is not None else values
    qualifier = form.op.spec.qualifier
    scope = f"::pto::{qualifier}::" if qualifier else ""
    return Call(d.impl or form.op.name, d.call, d.roles, list(targs), list(args), scope)


def _rename(expr: str, names: dict[str, str]) -> str:
    """`expr` (whitespace collapsed) with every unqualified identifier in `names` replaced."""
    expr = " ".join(expr.split())
    return re.sub(r"(?<!::)\b[A-Za-z_]\w*\b(?!::)", lambda m: names.get(m.group(0), m.group(0)), expr)


def normalized(call: Call, template: list[tuple[str, str]], params: list[str]) -> str:
    """The call with the declaration's names replaced by their position (`T0`.. for type template
    parameters, `V0`.. for value ones, `a0`.. for function parameters), so that two headers that
    name parameters differently compare equal. `template` is (name, kind) in declaration order."""
    names: dict[str, str] = {}
    types = [n for n, k in template if k == "typename"]
    values = [n for n, k in template if k == "value"]
    names.update({n: f"T{i}" for i, n in enumerate(types)})
    names.update({n: f"V{i}" for i, n in enumerate(values)})
    names.update({n: f"a{i}" for i, n in enumerate(params)})

    def rename(expr: str) -> str:
        return _rename(expr, names)

    targs = f"<{', '.join(rename(a) for a in call.template_args)}>" if call.template_args else ""
    via = (
        call.call
        if call.call in ("direct", "helper")
        else f"MAP_INSTR_IMPL_ROLES {call.roles}"
        if call.roles
        else "MAP_INSTR_IMPL"
    )
    return f"{call.function}{targs}({', '.join(rename(a) for a in call.args)}) via {via}"


# ----------------------------------------------------------------------------- CPU backend


@dataclasses.dataclass(frozen=True)
class AdapterTParam:
    name: str
    kind: str  # typename | value
    type: str | None = None
    default: None = None


@dataclasses.dataclass(frozen=True)
class AdapterParam:
    """A function parameter of an adapter, spelled by the same template macro as the intrinsic's."""

    name: str
    type: str | None = None
    attr: str | None = None
    value_type: str | None = None
    dtype_of: str | None = None
    events: bool = False
    pointer: bool = False
    default: str | None = None
    const: bool = False


@dataclasses.dataclass(frozen=True)
class Adapter:
    """The CPU backend's `<NAME>_IMPL` for one dispatch signature: it receives what the intrinsic
    passes and runs the simulator's generated function for that form."""

    function: str
    template: list[AdapterTParam]
    params: list[AdapterParam]
    target: str  # the simulator function, in namespace cpu
    target_targs: list[str]
    target_args: list[str]
    explicit: int  # how many leading template parameters the call passes explicitly
    # Type parameters that must be tiles: a scalar passed as a tile (TCMPS's tile form), so that a
    # plain scalar argument does not also deduce this adapter.
    tile_only: tuple[str, ...] = ()

    @property
    def requires(self) -> str:
        return " && ".join(f"is_tile_data_v<{t}>" for t in self.tile_only)

    @property
    def key(self) -> str:
        """Signature without names: two adapters with the same key would redefine each other."""
        tp = ",".join(t.type or t.kind for t in self.template)
        order = {t.name: f"T{i}" for i, t in enumerate(self.template)}

        def spell(p: AdapterParam) -> str:
            ref = p.type or p.dtype_of or p.value_type or p.attr or ""
            kind = "*" if p.pointer else "&" if p.type else "::DType" if p.dtype_of else ""
            return order.get(ref, ref) + kind

        return f"{self.function}<{tp}>({','.join(spell(p) for p in self.params)})"

    @property
    def runs(self) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
        """What the adapter calls, with its own template and function parameter names replaced by
        their position, so that two declarations reaching one signature under other names compare
        equal (AtomicType::AtomicNone fixed as `Fixed2` and a parameter `atomicType`)."""
        names = {t.name: f"T{i}" for i, t in enumerate(self.template)}
        names.update({p.name: f"a{i}" for i, p in enumerate(self.params)})

        return (
            self.target,
            tuple(_rename(a, names) for a in self.target_targs),
            tuple(_rename(a, names) for a in self.target_args),
        )


def adapter(form: FormViewAPI, owner: Any = None) -> Adapter | None:
    """The `_IMPL` adapter a form needs in the CPU backend, or None when it dispatches to another
    op's implementation: that op (`owner`, an OpView) defines it, running its own simulator
    function with the arguments its kind gives the form."""
    call = resolve(form)
    target_op = form.op if owner is None else owner
    # A backend function the op's kind defines for this form (TEXTRACT's TEXTRACT_ND2XNZ_IMPL) is
    # the form's own adapter, as the op's `_IMPL` is.
    kind_owned = owner is None and call.impl in form.op.kind.own_impls(form.op.spec)
    if (call.impl != target_op.name and not kind_owned) or call.call == "helper":
        return None
    tparams = {t.name: t for t in form.template}
    params = {p.name: p for p in form.params}
    template: list[AdapterTParam] = []
    for i, expr in enumerate(call.template_args):
        t = tparams.get(expr)
        if t is not None and t.kind == "typename":
            template.append(AdapterTParam(expr, "typename"))
        elif t is not None:
            declared = str(t.type)
            auto = target_op.kind.form_backend(form.op, form).auto_types
            typed = auto.get(expr, declared) if declared == "auto" else declared
            template.append(AdapterTParam(expr, "value", typed))
        else:  # a constant the intrinsic fixes, e.g. AtomicType::AtomicNone
            template.append(AdapterTParam(f"Fixed{i}", "value", fixed_type(form, expr)))
    fparams: list[AdapterParam] = []
    for expr in call.args:
        p: Any = params.get(expr)
        if p is not None:
            spelled = AdapterParam(
                p.name, p.type, p.attr, p.value_type, p.dtype_of, pointer=p.pointer, const=p.const
            )
            fparams.append(spelled)
        elif expr in tparams or owner is None:  # a value template parameter, e.g. TCVT's NeedSetCtrl
            fparams.append(AdapterParam(expr, value_type=str(tparams[expr].type)))
        else:  # a constant another op passes (TRECIP's divisor): the owner's own forms define that call
            return None
    listed = {t.name for t in template}
    for t in form.template:  # deduced type parameters the function parameters use
        used = any(t.name in (p.type, p.dtype_of, p.value_type) for p in fparams)
        if t.kind == "typename" and used and t.name not in listed:
            template.append(AdapterTParam(t.name, "typename"))
    kind = target_op.kind
    return Adapter(
        f"{call.impl}_IMPL",  # defined in the op's own namespace: unqualified
        template,
        fparams,
        form.impl_name if owner is None else f"{owner.name}_impl",
        kind.sim_targs(form.op, form),
        kind.sim_args(form.op, form),
        len(call.template_args),
        tuple(str(p.type) for p in form.params if p.from_tile and p.name in call.args),
    )
