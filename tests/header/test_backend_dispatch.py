"""The generated header reaches each backend exactly as upstream's pto_instr.hpp does.

For A2A3, A5 and the CPU simulator, one program includes the generated header with stub backends
written here: every header `pto_instr_impl.hpp` names for the target (upstream's NPU files, or the
CPU files under upstream's names, which the stubs shadow) defines recording `_IMPL` functions. The
program calls every declaration of every intrinsic through the public API, with tiles its profile
accepts, and compares the one call that reaches the backend with upstream's dispatch of that
declaration (tests/fixtures/upstream_dispatch.txt): the implementation, each template argument's
value or type, and each call argument (which object, or which value).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from ptogen.emit.render import environment
from ptogen.importer.cpp import split_top_level
from ptogen.importer.declarations import declarations
from ptogen.opkinds.base import OpKind
from ptogen.paths import Layout
from ptogen.rules.parts import TileFilter, part
from ptogen.testing.plan import global_decls, plan_op

from ..compilers import COMPILERS, cxx_argv, require
from ..helpers import NO_RUNTIME_CASES, ROOT, checkout_project

PROJECT = checkout_project()
GENERATED = (ROOT / "generated/include/pto/common/pto_instr.hpp").read_text()


def _upstream() -> dict[tuple[str, str], str]:
    lines = (ROOT / "tests/fixtures/upstream_dispatch.txt").read_text().splitlines()
    out = {}
    for line in lines:
        if line and not line.startswith("#"):
            name, rest = line.split(" ", 1)
            shape, dispatch = rest.split(" => ")
            out[(name, shape)] = dispatch
    return out


UPSTREAM = _upstream()
OURS = declarations(GENERATED)

RECORDER = """#pragma once
// Stub backend: every _IMPL records its name, explicit template arguments and call arguments.
#include <cstdint>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

namespace stub {
struct Call {
    std::string impl;
    std::vector<std::string> targs, args;
};
inline std::vector<Call> calls;

template <typename T>
std::string type() { return std::string("type:") + typeid(T).name(); }

template <typename V>
std::string value(V v) {
    if constexpr (std::is_pointer_v<V> || std::is_null_pointer_v<V>)  // `&exp`: the object it points to
        return "object:" + std::to_string(reinterpret_cast<std::uintptr_t>(static_cast<const void*>(v)));
    else if constexpr (std::is_enum_v<V>)
        return "value:" + std::to_string(static_cast<long long>(v));
    else  // numbers, and the 16-bit float classes through double
        return "value:" + std::to_string(static_cast<long double>(static_cast<double>(v)));
}

// A tile, global tensor, context or struct is identified by its address, a pointer (TQUANT's side
// tiles) by the address it holds, anything else by its value.
template <typename A>
std::string id(A& a) {
    if constexpr (std::is_pointer_v<A> || std::is_null_pointer_v<A>)
        return "object:" + std::to_string(reinterpret_cast<std::uintptr_t>(static_cast<const void*>(a)));
    else if constexpr (requires { a.data(); } || requires { a.GetSession(); } ||
                  (std::is_class_v<A> && !requires { static_cast<double>(a); }))
        return "object:" + std::to_string(reinterpret_cast<std::uintptr_t>(&a));
    else
        return value(a);
}
template <typename A>
std::string id(const A& a) { return id(const_cast<A&>(a)); }
}  // namespace stub
"""

_DECL = environment(ROOT / "templates").from_string(
    '{% import "tests/macros.j2" as t %}{% import "macros.j2" as m %}'
    "{% macro tile(x) %}{{ t.declare(x) }}{% endmacro %}"
    "{% macro glob(x) %}{{ t.declare_global(x) }}{% endmacro %}"
    "{% macro tparam(x) %}{{ m.tparam(x) }}{% endmacro %}"
    "{% macro param(x) %}{{ m.param(x) }}{% endmacro %}"
)
MACROS = _DECL.module  # type: ignore[attr-defined]


def stub_impls() -> str:
    """A recording function for every `_IMPL` signature the CPU backend defines, in the namespace
    of its header's ops (pto, or pto::comm for the sets declared apart)."""
    out = ["#pragma once", '#include "stub_record.hpp"']
    headers = [("pto/common/pto_instr.hpp", "pto")] + [
        (s.header, f"pto::{s.namespace}") for s in PROJECT.targets.instruction_sets if s.header
    ]
    for header, namespace in headers:
        out.append(f"namespace {namespace} {{")
        seen: set[str] = set()
        for op in PROJECT.header_ops(header):
            for a in op.adapters:
                if a.key in seen:
                    continue
                seen.add(a.key)
                tparams = ", ".join(str(MACROS.tparam(t)) for t in a.template)
                params = ", ".join(str(MACROS.param(p)) for p in a.params)
                targs = ", ".join(
                    f"stub::type<{t.name}>()" if t.kind == "typename" else f"stub::value({t.name})"
                    for t in a.template[: a.explicit]
                )
                ids = ", ".join(f"stub::id({p.name})" for p in a.params)
                guard = f" requires({a.requires})" if a.requires else ""  # as the CPU backend's adapter
                ret = "return {};" if op.impl_returns != "void" else ""  # a default-constructed result
                out.append(
                    f"template <{tparams}>{guard}\ninline {op.impl_returns} {a.function}({params}) {{\n"
                    f'    stub::calls.push_back({{"{a.function}", {{{targs}}}, {{{ids}}}}});{ret}\n}}'
                )
        out.append(f"}}  // namespace {namespace}")
    return "\n".join(out) + "\n"


def _value_args(op, form, main_explicit: list[str], main_args: list[str]) -> list[str]:  # type: ignore[no-untyped-def]
    """The value template arguments a call of `form` passes: the main form's explicit ones (the
    test plan's), the main call's argument for an operand the form takes as a template argument
    (TASSIGN<Addr>), else the form's test value, its default, or the first value of its enum."""
    main_values = [t.name for t in op.spec.intrinsic.template if t.kind == "value"]
    given = dict(zip(main_values, main_explicit, strict=False))
    by_operand = form.test.main_args_by_operand(main_args)
    out = []
    for t in (t for t in form.template if t.kind == "value"):
        out.append(given.get(t.name) or by_operand.get(t.operand or "") or form.test.template_value(t.name))
    return out


def _expected(
    dispatch: str, form, call_args: list[str], value_args: list[str]
) -> tuple[str, list[str], list[str]]:  # type: ignore[no-untyped-def]
    """C++ expressions giving what the stub must record for `dispatch` (normalized, positional)."""
    m = re.fullmatch(r"(\w+)(?:<(.*)>)?\((.*)\) via .*", dispatch)
    assert m, dispatch
    impl, targs, args = m.group(1), split_top_level(m.group(2) or ""), split_top_level(m.group(3))
    params = [p for p in form.params if not p.events]
    by_param = dict(zip([p.name for p in params], call_args, strict=False))
    types = [t.name for t in form.template if t.kind == "typename"]

    def subst(expr: str) -> str:
        if expr.strip() in by_param:  # a defaulted parameter keeps its name in the reduced dispatch
            return f"({by_param[expr.strip()]})"
        expr = re.sub(r"\ba(\d+)\b", lambda x: f"({by_param[params[int(x.group(1))].name]})", expr)
        return re.sub(r"\bV(\d+)\b", lambda x: f"({value_args[int(x.group(1))]})", expr)

    def targ(expr: str) -> str:
        expr = expr.strip()
        t = re.fullmatch(r"T(\d+)", expr)
        if t:
            name = types[int(t.group(1))]  # a tile's type, or a scalar's (TCI's `T start`)
            holder = next(p for p in params if name in (p.type, p.value_type))
            held = f"decltype({by_param[holder.name]})"
            if holder.pointer:  # TQUANT's `TileDataExp* exp`: the type is what it points to
                held = f"std::remove_pointer_t<{held}>"
            return f"stub::type<{held}>()"
        return f"stub::value({subst(expr)})"

    def arg(expr: str) -> str:
        expr = subst(expr.strip())
        return f"stub::id({expr})" if re.fullmatch(r"\(\w+\)", expr) else f"stub::value({expr})"

    return f'"{impl}"', [targ(t) for t in targs if t.strip()], [arg(a) for a in args if a.strip()]


# Declarations whose dispatch departs from upstream's, argued in their spec's notes: TFILLPAD's Vec form
# passes `mode` to one _IMPL where upstream's body picks one of three with `if constexpr`.
ARGUED_DISPATCH = {
    ("TFILLPAD", "<TFillPadMode _ = TFillPadMode::Normal, typename, typename, typename...>(T0&, T1&, P&...)"),
    # SYNCALL's workspace form calls one SYNCALL_IMPL<Mode, CoreType> where upstream picks one per mode.
    ("SYNCALL", "<SyncAllMode _, SyncCoreType _ = SyncCoreType::AIVOnly, typename>(T0&, int32_tusedCores=)"),
}


def _planned_forms(op, tests, profile: str) -> tuple[list[str], int]:  # type: ignore[no-untyped-def]
    """Calls of each declaration of an op whose kind plans its forms (TMRGSORT, TGATHER, TSCATTER),
    each from the first runtime case of the profile that calls that declaration (its call names the
    declaration's template arguments explicitly, or none for the main one)."""
    lines = [f"{{  // {op.spec.mnemonic}"]
    shapes = [s for s, _ in OURS[op.name]]
    cases = [c for k in tests.runtime if profile in k.profiles for c in k.cases]
    n = 0
    for form, shape in zip(op.forms, shapes, strict=True):
        params = [p for p in form.params if not p.events]
        tparams = [t for t in form.template if t.kind != "pack"]

        def calls_form(c, params=params, tparams=tparams, main=form.index == 0):  # type: ignore[no-untyped-def]
            n_targs = len(c.call.template_args)
            # The main declaration may be called with its leading template arguments only (SYNCALL<Mode,
            # CoreType>(workspace) deduces GlobalData).
            if len(c.call.args) != len(params) or not (
                n_targs == len(tparams) or (main and n_targs < len(tparams))
            ):
                return False
            # Each explicit argument fits its parameter's kind: a type names a test type (TQUANT's
            # forms take as many template arguments as each other, in other orders).
            return all(
                (t.kind == "typename") == bool(re.fullmatch(r"(Tile|Global)_\w+", a))
                for t, a in zip(tparams, c.call.template_args, strict=False)
            )

        case = next((c for c in cases if calls_form(c)), None)
        if case is None:
            # No kernel of this NPU profile calls the form (its rules there refuse the types the cases
            # use: TQUANT's MX forms on A2A3); the CPU profile, which runs every form, checks it.
            assert profile != "CPU", f"{op.spec.mnemonic}: no CPU case calls declaration {form.index}"
            continue
        values = [a for t, a in zip(tparams, case.call.template_args, strict=False) if t.kind == "value"]
        if len(values) < sum(t.kind == "value" for t in tparams):  # the ones the call leaves out
            values += _value_args(op, form, [], case.call.args)[len(values) :]
        upstream = None if (op.name, shape) in ARGUED_DISPATCH else UPSTREAM.get((op.name, shape))
        dispatch = upstream or dict(OURS[op.name])[shape]
        impl, targs, ids = _expected(dispatch, form, case.call.args, values)
        lines.append("    {")
        lines += [f"        {MACROS.tile(t)}" for t in case.tiles]
        lines += [f"        {MACROS.glob(g)}" for g in case.globals]
        lines += [f"        {ty} {name};" for ty, name in case.contexts]
        explicit = f"<{', '.join(case.call.template_args)}>" if case.call.template_args else ""
        lines.append("        stub::calls.clear();")
        lines.append(f"        {op.name}{explicit}({', '.join(case.call.args)});")
        what = f'"{op.name} form {form.index}"'
        lines.append(f"        check({what}, {impl}, {{{', '.join(targs)}}}, {{{', '.join(ids)}}});")
        lines.append("    }")
        n += 1
    lines.append("}")
    return lines, n


def program(profile: str) -> tuple[str, int, list[str]]:
    """The test program for one profile, the number of calls it checks, and ops it cannot call."""
    body: list[str] = []
    checked, skipped = 0, []
    for op in PROJECT.header_ops("pto/common/pto_instr.hpp"):
        tests = plan_op(PROJECT, op)
        kernel = next((k for k in tests.runtime if profile in k.profiles), None)
        if kernel is None or op.spec.short in PIPE_OPS:
            skipped.append(op.spec.short)
            continue
        case = kernel.cases[0]
        if op.kind.facts.plans_forms:  # each declaration takes other operands: the case that calls it
            lines, n = _planned_forms(op, tests, profile)
            body.append("\n".join(lines))
            checked += n
            continue
        lines = [f"{{  // {op.spec.mnemonic}"]
        lines += [f"    {MACROS.tile(t)}" for t in case.tiles]
        lines += [f"    {MACROS.glob(g)}" for g in case.globals]
        lines += [f"    {ty} {name};" for ty, name in case.contexts]
        for name, v in case.scalars.items():
            lines.append(
                f"    {kernel.dtypes[name]} {name}_value = static_cast<{kernel.dtypes[name]}>({v!r});"
            )
        shapes = [s for s, _ in OURS[op.name]]
        dst = next(t for t in case.tiles + case.globals if t.name == op.spec.semantics.domain)
        for form, shape in zip(op.forms, shapes, strict=True):
            if form.index == 0 and any(f.extra_tiles for f in op.forms) and op.spec.intrinsic.tmp_in_events:
                # The test plan's call passes the tmp (TPRELU), so it resolves to the form that names
                # it, which is checked below.
                continue
            if form.index and not form.unchecked_profiles([profile]):
                # Rules limited to this form decide its calls under this profile (TCONCAT's integer
                # index tiles on A2A3 and A5), which the main case's tiles need not meet: its compile
                # cases cover it here, and this test under the profiles that run it.
                continue
            args = case.call.args if form.index == 0 else form.test.call_args(case.call.args)
            upstream = None if (op.name, shape) in ARGUED_DISPATCH else UPSTREAM.get((op.name, shape))
            dispatch = upstream or dict(OURS[op.name])[shape]
            # A kind that spells its calls itself passes every template argument (TCI<TileT, T, 1>).
            spelled = type(op.kind).test_call is not OpKind.test_call
            names = {t.name: t.type_name for t in case.tiles}
            full = form.test.template_args(case.call.template_args, names) if spelled else []
            named = [t for t in form.template if t.kind != "pack"]
            values = (
                [a for a, t in zip(full, named, strict=True) if t.kind == "value"]
                if spelled
                else _value_args(op, form, case.call.template_args, case.call.args)
            )
            impl, targs, ids = _expected(dispatch, form, args, values)
            lines.append("    {")
            # A form with rules of its own on this profile (TSTORE's accumulator-only forms) gets
            # tiles those rules admit, declared in its block over the case's.
            own = {t.name: t for t in case.tiles}
            mine = form.rules_for(profile)
            for rv in mine:
                own = part(rv.rule, TileFilter).legalise(own)
            lines += [f"        {MACROS.tile(t)}" for t in own.values() if t not in case.tiles]
            # ... and GlobalTensors of the element types those rules pair them with (TSTORE's
            # accumulator stores on A2A3 and A5).
            gtypes = {n: d for rv in mine for n, d in part(rv.rule, TileFilter).global_dtypes(own).items()}
            if gtypes:
                own_globals = global_decls(op, own, dtypes=gtypes)
                lines += [f"        {MACROS.glob(g)}" for g in own_globals if g not in case.globals]
            if form.value_output:
                lines.append(f"        {MACROS.tile(form.test.value_tile(case.tiles))}")
            tiles = {t.name: t for t in case.tiles}
            for tmp in form.test.own_tiles:  # a scratch tile the case has (TPRELU's tmp) keeps its shape
                like = tiles.get(tmp.removesuffix(f"_f{form.index}"), dst)
                lines.append(f"        {like.type_name} {tmp};")
            lines += [f"        {tiles[st['like']].type_name} {st['name']};" for st in form.test.scalar_tiles]
            explicit = f"<{', '.join(values)}>" if values else ""
            if form.template[0].kind == "typename" and all(
                t.default is not None for t in form.template if t.kind == "value"
            ):  # value parameters after the types, each with a default (TMOV_FP's reluMode): left out
                explicit = ""
            if form.index and op.spec.intrinsic.overloads[form.index - 1].test_template_args:
                # value parameters after type parameters (TSTORE's atomicType): spell the types too
                types = {x.name: f"decltype({x.name})" for x in case.tiles + case.globals}
                explicit = f"<{', '.join(form.test.template_args(case.call.template_args, types))}>"
            if spelled:
                explicit = f"<{', '.join(full)}>"
            lines.append("        stub::calls.clear();")
            lines.append(f"        {op.name}{explicit}({', '.join(args)});")
            what = f'"{op.name} form {form.index}"'
            lines.append(f"        check({what}, {impl}, {{{', '.join(targs)}}}, {{{', '.join(ids)}}});")
            lines.append("    }")
            checked += 1
        lines.append("}")
        body.append("\n".join(lines))
    main = "\n".join(body)
    source = f"""#include "stub_record.hpp"
#include <pto/pto-inst.hpp>
#include <cstdio>
#include <memory>
using namespace pto;
static int failures = 0, checked = 0;
static void check(const char* what, const std::string& impl, const std::vector<std::string>& targs,
                  const std::vector<std::string>& args) {{
    ++checked;
    if (stub::calls.size() != 1) {{
        std::printf("FAIL %s: %zu backend calls\\n", what, stub::calls.size());
        ++failures;
        return;
    }}
    const stub::Call& c = stub::calls[0];
    if (c.impl != impl || c.targs != targs || c.args != args) {{
        std::printf("FAIL %s: called %s<", what, c.impl.c_str());
        for (const auto& t : c.targs) std::printf("%s ", t.c_str());
        std::printf(">(");
        for (const auto& a : c.args) std::printf("%s ", a.c_str());
        std::printf("), expected %s<", impl.c_str());
        for (const auto& t : targs) std::printf("%s ", t.c_str());
        std::printf(">(");
        for (const auto& a : args) std::printf("%s ", a.c_str());
        std::printf(")\\n");
        ++failures;
    }}
}}
int main() {{
{main}
    std::printf("checked %d, failed %d\\n", checked, failures);
    return failures != 0;
}}
"""
    return source, checked, skipped


# Ops a profile offers whose test plan has no runtime case under it, so nothing here calls them:
# those with compile cases only (helpers.NO_RUNTIME_CASES), and these.
# The pipe ops: their cases run several cores on threads around the call (the pipe is their own
# statement), which the stub backends cannot run; `ptogen diff-header` and
# tests/cli/test_diff_header.py compare their dispatch with upstream's.
PIPE_OPS = {"talloc", "tpush", "tpop", "tfree", "set_quant_scalar", "set_quant_vector"}
NO_CASE_UNDER_NPU = {
    "tinsert_fp": "on A2A3 and A5 the planner finds no call of the page's vector-quantised pairs that "
    "its tiles meet (its compile cases cover the rules there; the CPU profile runs it)",
}

# The build macro that selects each profile's backend; the CPU build names none.
ARCH = {"A2A3": ["-DPTO_NPU_ARCH_A2A3"], "A5": ["-DPTO_NPU_ARCH_A5"], "CPU": ["-D__CPU_SIM"]}


# The CPU profile in the README command; the NPU profiles' dispatch (the same header) in CI's full tier.
@pytest.mark.parametrize(
    "profile", [p if p == "CPU" else pytest.param(p, marks=pytest.mark.full_tier) for p in ARCH]
)
def test_every_declaration_dispatches_as_upstream(profile: str, tmp_path: Path) -> None:
    prof = next(p for p in PROJECT.profiles if p.name == profile)
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    (stubs / "stub_record.hpp").write_text(RECORDER)
    (stubs / "stub_impls.hpp").write_text(stub_impls())
    includes = PROJECT.backend_includes(prof)
    assert includes, "the generated backend selection names no header"
    # The sets declared in headers of their own (pto::comm) select their backends too.
    for iset in PROJECT.targets.instruction_sets:
        if iset.header:
            includes += PROJECT.backend_includes(prof, iset.header)
    for path in includes:  # each header the generated backend selections include is a stub
        target = stubs / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text('#pragma once\n#include "stub_impls.hpp"\n')
    source, checked, skipped = program(profile)
    (tmp_path / "dispatch.cpp").write_text(source)
    layout = Layout.make(root=ROOT)
    cxx = require(COMPILERS[0])
    exe = tmp_path / "dispatch"
    build = subprocess.run(
        [*cxx_argv(cxx), "-std=c++20", "-O0", f"-I{stubs}", f"-I{layout.generated_include}",
         f"-I{ROOT / 'ptogen/runtime/include'}", *ARCH[profile], str(tmp_path / "dispatch.cpp"),
         "-o", str(exe)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr[-4000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=False, timeout=60)
    assert run.returncode == 0, run.stdout[-4000:]
    assert f"checked {checked}, failed 0" in run.stdout
    # Every intrinsic is reached under the profile, except ops it does not offer and those named.
    ops = {o.spec.short: o for o in PROJECT.header_ops("pto/common/pto_instr.hpp")}
    unexplained = [
        n
        for n in skipped
        if ops[n].available(profile)
        and n not in NO_RUNTIME_CASES
        and n not in NO_CASE_UNDER_NPU
        and n not in PIPE_OPS
    ]
    assert checked >= 90 and not unexplained, (checked, unexplained)
