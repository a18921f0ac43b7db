"""A scalar page's operands and runtime builtin: the operand table's rows, and the function its C++
section declares or calls (`pipe_t pipe = PIPE_S; get_buf(pipe, bufId, mode);`). What the page does
not state is set to a placeholder and reported, for the importing user to complete."""

from __future__ import annotations

import re
from typing import Any

from .cpp import split_top_level
from .markup import read_table
from .naming import ADDRESS_SPACE, CPP_TYPE_NAME, OPERAND_NAME, snake
from .pagefacts import PageFacts

# The runtime header that declares the scalar builtins (ptogen/runtime/include/...).
RUNTIME_HEADER = "pto/common/cpu_stub.hpp"
# The one that gives an IR form's spelling its meaning on the host (qualifiers, `__VEC_SCOPE__`).
SCOPE_HEADER = "pto/vsim/scope.hpp"

_ROLES = ("dst", "src", "scalar", "tmp", "mask", "attr")
_SIGNATURE = re.compile(r"^(?P<returns>\w+) (?P<name>\w+)\((?P<params>.*)\);$")
_CPP_IDENT = re.compile(r"^[A-Za-z_]\w*$")
# What a parameter's type may be spelt as: a typedef (`pipe_t`, `uint64_t`) or a fundamental type.
_CPP_TYPE = re.compile(
    r"^(?:const )?(?:\w+_t|void|bool|char|short|int|long|unsigned|float|double|"
    r"[A-Za-z_]\w*(?:::\w+)+|vector_\w+)(?:\*\*|\*&|[&*])?$"
)
_PARAM = re.compile(rf"^{ADDRESS_SPACE}(?P<type>{CPP_TYPE_NAME})\s*(?<=[\s*&])(?P<name>\w+)$")
# A call whose result a variable holds: `pset_b32(pattern)`.
_RETURNED = re.compile(r"^(?P<fn>[A-Za-z_]\w*)\((?P<args>.*)\)$")
# An example argument the spec can hold: a (qualified) name or an integer, not an expression.
_CONSTANT = re.compile(r"^(?:\{\}|-?[0-9]+|[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*)$")


def operand_name(cell: str) -> str:
    """`%buf_id`, `SRC_PIPE`, `"PIPE_*"` -> buf_id, src_pipe, pipe."""
    return snake(cell.strip("`%\"' ").replace("*", "")).strip("_")


def scalar_operands(
    facts: PageFacts, unplaced: list[str], register_call: bool = False, form: bool = False
) -> list[dict[str, Any]]:
    """One operand per row of the page's Inputs table, then one per predicate row of its Expected
    Outputs table (a predicate builtin's results, and the value a declared builtin returns; the
    other rows of a page's outputs are not operands). A row typed `!pto.mask<...>` is a predicate
    register (kind `mask`), any other a scalar. A vector page's register-model call (`register_call`)
    passes its results as its first arguments, and an IR form (`form`) names them first: every row
    is an operand, the results first (a register call's all of role scalar)."""
    operands: list[dict[str, Any]] = []
    declared = _declared(facts)
    returns = declared is not None and declared[2] != "void"
    rows = [(row, "src") for row in read_table(_first_table(facts.inputs))]
    outputs = [(row, "dst") for row in read_table(_first_table(facts.outputs))]
    rows = outputs + rows if register_call or form else rows + outputs
    for row, default_role in rows:
        name = operand_name(row["name"])
        typ = row.get("type") or "i64"
        mask = typ.startswith("!pto.mask")
        if register_call:
            mask, default_role = False, "scalar"
        elif default_role == "dst" and not mask and not returns and not form:
            continue
        if not OPERAND_NAME.match(name) or any(o["name"] == name for o in operands):
            unplaced.append(f"operand row {row['name']!r} does not name an operand")
            continue
        role = row.get("role", "")
        # an input predicate is a source (one named `mask` after another the op's predicate mask, when
        # the page has no role column; alone it is the predicate a store writes), a result a
        # destination, any other row a scalar
        default_role = default_role if mask or default_role == "dst" else "scalar"
        sources = [o for o in operands if o["kind"] == "mask" and o["role"] == "src"]
        if mask and default_role == "src" and name == "mask" and sources:
            default_role = "mask"
        operands.append(
            {
                "name": name,
                "kind": "mask" if mask else "scalar",
                "role": role if role in _ROLES else default_role,
                "asm_type": typ,
                "description": row.get("description") or name,
            }
        )
    return operands


def _first_table(lines: list[str]) -> list[str]:
    """The rows of the section's first table (a page may follow it with a table of values, under a
    heading of its own: `### Supported Pattern Tokens`)."""
    heading = next((k for k, ln in enumerate(lines) if ln.startswith("#")), len(lines))
    lines = lines[:heading]
    rules = [k for k, ln in enumerate(lines) if "-" in ln and set(ln.replace("|", "").strip()) <= set("-: ")]
    return lines[: rules[1] - 1] if len(rules) > 1 else lines


def read_builtin(
    facts: PageFacts, operands: list[dict[str, Any]], mnemonic: str, unplaced: list[str]
) -> dict[str, Any]:
    """The builtin the page's C++ section shows, its parameters carrying the operands in their order
    (the operands are reordered to the parameters' order when the page lists them otherwise)."""
    name = mnemonic.removeprefix("pto.")
    declared = _declared(facts)
    returns = "void"
    if declared is not None:
        name, _, returns = declared
    variables = {v: (t, value) for t, v, value in facts.call_variables}
    call = next((args for fn, args in facts.calls if fn == name), None)
    if call is None:  # a builtin that returns its result: `vector_bool mask = pset_b32(pattern);`
        returned = next(
            (
                (typ, m["args"])
                for typ, _, value in facts.call_variables
                if (m := _RETURNED.match(value)) and m["fn"] == name
            ),
            None,
        )
        if returned is not None:
            call = returned[1]
            returns = returns if declared is not None else returned[0]  # no declaration: the variable's type
    if declared is None and call is None and facts.calls:
        name, call = facts.calls[0]
    params: list[dict[str, Any]] = []
    if declared is not None:
        examples = split_top_level(call) if call is not None else []
        for k, (typ, pname) in enumerate(declared[1]):
            arg = examples[k] if k < len(examples) else ""
            value = variables.get(arg, ("", arg))[1]
            # `T name{};`: a value-initialised variable, the spec's parameter without an example
            params.append(
                {"name": pname, "type": typ, "example": None if arg in variables and not value else value}
            )
    elif call is not None:
        for arg in split_top_level(call):
            typ, value = variables.get(arg, ("", arg))
            params.append({"name": arg if _CPP_IDENT.match(arg) else "", "type": typ, "example": value})
    for p in params:  # a call without a declaration: the predicate it names `dst` is its result
        if declared is None and p["type"] == "vector_bool" and p["name"].startswith("dst"):
            p["type"] += "&"
    if declared is None or params:  # a declared `f()` has no parameter to match
        _match(params, operands, unplaced)
    carried = {p["operand"] for p in params}
    result = None
    if returns != "void":  # the returned operand is the first, a destination no parameter carries
        result = next((o for o in operands if o["role"] == "dst" and o["name"] not in carried), None)
        if result is not None:
            operands.remove(result)
            operands.insert(0, result)
    if declared is not None or call is not None:  # an operand the page's call does not pass
        for o in [o for o in operands if o["name"] not in carried and o is not result]:
            unplaced.append(f"operand {o['name']!r}: the page's C++ call passes no argument for it; left out")
            operands.remove(o)
    for p in params:
        if not _CPP_TYPE.match(p["type"] or ""):
            unplaced.append(f"builtin parameter {p['name']!r}: no C++ type on the page; `int` stands for it")
            p["type"] = "int"
        if p["example"] is None:
            del p["example"]
        elif not _CONSTANT.match(p["example"]):
            unplaced.append(f"builtin parameter {p['name']!r}: no plain example argument; 0 stands in")
            p["example"] = "0"
    header = facts.header
    if header is None:
        unplaced.append(f"the page names no header of `{name}`: `builtin.header` set to {RUNTIME_HEADER}")
        header = RUNTIME_HEADER
    out: dict[str, Any] = {"name": name, "header": header, "params": params}
    if returns != "void":
        out["returns"] = returns
    return out


def shows_builtin(facts: PageFacts) -> bool:
    """Whether the page declares a plain runtime function (`void vlds(vector_f32& dst, ...);`)."""
    return _declared(facts) is not None


def _declared(facts: PageFacts) -> tuple[str, list[tuple[str, str]], str] | None:
    """The name, (type, name) parameters and return type of the page's `RET NAME(T a, ...);`
    declaration."""
    for sig in facts.signatures:
        m = _SIGNATURE.match(" ".join(sig.replace(",", ", ").split()))
        if m is None:
            continue
        params = []
        for p in split_top_level(m["params"]):
            if not p.strip() or p.strip() == "void":
                continue  # `f()`: no parameters
            # the name is the trailing identifier (`const float*ptr` once the page's text is normalised)
            typed = _PARAM.match(p.strip())
            typ, pname = (typed["type"], typed["name"]) if typed else ("", p.strip())
            params.append((" ".join(typ.split()), pname))
        return m["name"], params, m["returns"]
    return None


def _match(params: list[dict[str, Any]], operands: list[dict[str, Any]], unplaced: list[str]) -> None:
    """Each parameter's operand: the one of the same (snake_case) name or name prefix, else the one
    at its place; the operands are put in the parameters' order."""
    if not params:  # no C++ on the page: one parameter per operand, named after it
        results = [o for o in operands if o["role"] == "dst"]  # a builtin's results come first
        params.extend(
            {"name": o["name"], "type": o["asm_type"], "example": ""}
            for o in results + [o for o in operands if o not in results]
        )
        unplaced.append("the page shows no C++ call: `builtin` made from the operands; check it")
    by_name = {o["name"]: o for o in operands}
    picked: list[dict[str, Any]] = []
    for k, p in enumerate(params):
        key = snake(p["name"])
        # the operand at its place when one name's words hold the other's (`dst` carries `ub_dst`,
        # not the `dst_gap` a prefix would pick)
        placed = operands[k] if k < len(operands) else None
        if placed is not None:
            words, theirs = set(key.split("_")), set(placed["name"].split("_"))
            placed = placed if words <= theirs or theirs <= words else None
        found = (
            by_name.get(key)
            or placed
            or next((o for n, o in by_name.items() if n.startswith(key) or key.startswith(n)), None)
        )
        if found is None or found in picked:  # the first operand left that the parameter's type fits
            left = [o for o in operands[k:] + operands if o not in picked]
            found = next((o for o in left if _fits(p, o)), left[0] if left else None)
        if found is None:  # the call passes more than the operand table lists
            found = {
                "name": snake(p["name"]) or f"arg{k}",
                "kind": "scalar",
                "role": "scalar",
                "asm_type": p["type"] or "i64",
                "description": "Passed by the page's C++ call; the operand table does not list it.",
            }
            unplaced.append(f"builtin parameter {p['name']!r} carries no operand of the table: operand added")
            operands.append(found)
        p["operand"] = found["name"]
        p["name"] = p["name"] or found["name"]
        picked.append(found)
    operands[:] = picked + [o for o in operands if o not in picked]


def _fits(param: dict[str, Any], operand: dict[str, Any]) -> bool:
    """Whether a parameter may carry an operand: a predicate register a `mask` operand (a reference
    one the result), any other type a scalar."""
    if param["type"].removesuffix("&") != "vector_bool":
        return operand["kind"] != "mask"
    return operand["kind"] == "mask" and (operand["role"] == "dst") == param["type"].endswith("&")


# An IR form's C++ section: the header its spelling takes the qualifiers from, then the code.
_SPELLING_HEADER = re.compile(r"from `(?P<header>pto(?:/[a-z0-9_]+)+\.hpp)`\)?:")
_SPELLING_CODE = re.compile(r"^```cpp\n(?P<code>.*?)^```", re.M | re.S)


def read_spelling(text: str, unplaced: list[str]) -> dict[str, Any] | None:
    """The C++ an IR form's page gives as its spelling (its C++ Intrinsic section's code and the
    runtime header it names), or None when the page has no such section."""
    section = re.search(r"^## C\+\+ Intrinsic\n(?P<body>.*?)(?=^## )", text, re.M | re.S)
    code = _SPELLING_CODE.search(section["body"]) if section else None
    if section is None or code is None:
        return None
    header = _SPELLING_HEADER.search(section["body"])
    if header is None:
        unplaced.append(f"the page names no header of the spelling: `spelling.header` set to {SCOPE_HEADER}")
    return {"code": code["code"], "header": header["header"] if header else SCOPE_HEADER}
