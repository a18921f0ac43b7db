"""A page's operands: its operand table (or, without one, its formula and syntax line) matched to
the parameters of the main declaration, each operand with its kind, role and assembly type."""

from __future__ import annotations

import re
from typing import Any

from ..spec import expr as semantics
from ..spec.model import Targets
from .cpp import split_top_level
from .formula import MATH_FUNCTIONS
from .markup import read_table
from .naming import OPERAND_NAME, plain, snake
from .pagefacts import PageFacts
from .problem import ImportProblem

_ROLES = ("dst", "src", "scalar", "tmp", "mask", "attr")


def page_rows(facts: PageFacts) -> dict[str, dict[str, str]]:
    """Operand table rows by snake_case name (`%src0` -> src0); the events pack row is no operand,
    unless its type says the events are what the op works on (TSYNC's `!pto.event<...>`)."""
    rows: dict[str, dict[str, str]] = {}
    for row in read_table(facts.inputs) + read_table(facts.outputs):
        name = snake(row["name"].lstrip("%").strip())
        pack = name in ("events", "wait_events") and "!pto.event" not in row.get("type", "")
        if OPERAND_NAME.match(name) and not pack:
            rows.setdefault(name, row)
    return rows


def _fits(row: dict[str, str], kind: str) -> bool:
    """Whether a table row can describe a parameter of this kind (tile, scalar, attr)."""
    typ, role = row.get("type", ""), row.get("role", "")
    if not typ and role not in _ROLES:
        return True
    if kind == "attr":
        return role == "attr" or typ.startswith("#")
    if kind == "tile":
        return "tile" in typ or "tensor" in typ or role in ("dst", "src", "tmp", "mask")
    return "tile" not in typ and not typ.startswith("#")


_SSA_LINE = re.compile(
    r"(?P<outs>%[\w, %]*?)\s*=\s*pto\.\w+ (?P<ins>.*?) : \((?P<types>.*)\) -> (?P<res>.*)$"
)


def _syntax_rows(facts: PageFacts) -> dict[str, dict[str, str]]:
    """Operand names of the page's formula, then of its syntax line (results first, with their
    assembly types): the names a page without an operand table gives its operands."""
    rows: dict[str, dict[str, str]] = {}
    # The formula names operands as the spec does (`src0`, where the syntax line may say `src`).
    for name in re.findall(r"\\mathrm\{(\w+)\}", (facts.math or "").replace(r"\_", "_")):
        if name not in MATH_FUNCTIONS:
            rows.setdefault(name, {})
    for line in facts.syntax.get("ssa", []):
        m = _SSA_LINE.match(line)
        if m is None:
            continue
        outs = re.findall(r"%(\w+)", m.group("outs"))
        ins = re.findall(r"%(\w+)", m.group("ins"))
        types = split_top_level(m.group("types"))
        for k, name in enumerate(outs):
            rows.setdefault(snake(name), {"role": "dst" if k == 0 else ""})
        for name, typ in zip(ins, types + [""] * len(ins), strict=False):
            rows.setdefault(snake(name), {"type": typ} if "tile" in typ or typ == "dtype" else {})
        break
    return {n: r for n, r in rows.items() if OPERAND_NAME.match(n) and not n.startswith("arg")}


def match_names(params: list[dict[str, Any]], rows: dict[str, dict[str, str]]) -> None:
    """Pages may name an operand differently from its C++ parameter (`%mode` for `cmpMode`): a
    parameter without a row of its own takes the unclaimed row its name begins with in snake case
    (`cInMatrix` the row `c_in`, `aMatrix` the row `a`; the longest such row), else the first
    unclaimed row that fits its kind."""
    claimed = {p["operand"] for p in params if p.get("operand") in rows}
    for p in params:
        if p.get("events") or p["operand"] in rows:
            continue
        snake = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", p["name"]).lower()
        prefixed = [n for n in rows if n not in claimed and snake.startswith(n + "_")]
        if prefixed:
            p["operand"] = max(prefixed, key=len)
            claimed.add(p["operand"])
            continue
        kind = "attr" if "attr" in p else ("scalar" if "dtype_of" in p or "value_type" in p else "tile")
        spare = next((n for n in rows if n not in claimed and _fits(rows[n], kind)), None)
        if spare is not None:
            p["operand"] = spare
            claimed.add(spare)


def read_operands(
    facts: PageFacts, params: list[dict[str, Any]], vector: bool, targets: Targets, unplaced: list[str]
) -> list[dict[str, Any]]:
    """The operands of a page: a vector page's from its SSA line, a tile page's from the main
    declaration's parameters, each described by the operand table."""
    if vector:
        return _vector_operands(facts)
    return _tile_operands(facts, params, targets, unplaced)


# A vector page's SSA line: its results (none for a store: `pto.vsts %v, %dest[%offset], %mask : ...`),
# its operands and attributes, their types (in parentheses or not) and the results' types (`()` or none).
_VECTOR_SSA = re.compile(
    r"^(?:(?P<outs>%\w+(?:, %\w+)*) = )?pto\.\w+ (?P<ins>.*?) : (?P<types>.*?)(?: -> (?P<results>.*))?$"
)


def _unparenthesised(types: str) -> str:
    """`(!pto.vreg<NxT>, !pto.mask<G>)` -> the list inside; `()` (no results) -> nothing."""
    types = types.strip()
    if types.startswith("(") and types.endswith(")") and len(split_top_level(types)) == 1:
        return types[1:-1]
    return types


def call_shaped(facts: PageFacts) -> bool:
    """Whether a vector page's SSA line reads as a register-model builtin's rather than a lane op's
    (a result computed under a `%mask`): a line without a result (a store) or without a mask (a load,
    a rearrangement), whose operands are the call's arguments. A page without a readable SSA line is
    neither: the lane op's reader says what it lacks."""
    m = next(filter(None, (_VECTOR_SSA.match(line) for line in facts.syntax.get("ssa", []))), None)
    return m is not None and not (m.group("outs") and "%mask" in re.findall(r"%\w+", m.group("ins")))


def vector_call_operands(facts: PageFacts) -> list[dict[str, Any]]:
    """A register-model builtin's operands as its SSA line names them, when its page has no operand
    table: each an argument of the call (kind and role scalar), its results first."""
    operands = _vector_operands(facts)
    for o in operands:
        o["kind"], o["role"] = "scalar", "scalar"
    return operands


def _vector_operands(facts: PageFacts) -> list[dict[str, Any]]:
    rows = page_rows(facts)
    operands: list[dict[str, Any]] = []
    m = next(filter(None, (_VECTOR_SSA.match(line) for line in facts.syntax.get("ssa", []))), None)
    if m is None:
        raise ImportProblem(
            "a vector page needs an AS Level 1 (SSA) line to name its operands",
            facts.where.get("syntax.ssa"),
        )
    outs = re.findall(r"%(\w+)", m.group("outs") or "")
    # an address's displacement (`%dest[%offset]`) is an operand of its own, typed `index` when the
    # type list leaves it out
    ins = re.findall(r"(\[?)%(\w+)", m.group("ins"))
    # a type the line gives as alternatives (`T|!pto.vreg<NxT>`) is stated as its first
    in_types = [t.split("|")[0] for t in split_top_level(_unparenthesised(m.group("types")))]
    out_types = split_top_level(_unparenthesised(m.group("results") or ""))
    if len(in_types) < len(ins):
        typed = iter(in_types)
        in_types = ["index" if bracket else next(typed, "") for bracket, _ in ins]
    for k, name in enumerate(outs):
        typ = out_types[k] if k < len(out_types) else ("!pto.vreg<NxT>" if k == 0 else "!pto.mask<G>")
        operands.append(operand(name, "dst", typ, rows))
    for name, typ in zip([n for _, n in ins], in_types, strict=False):
        role = "mask" if name == "mask" else ("scalar" if "!pto" not in typ else "src")
        operands.append(operand(name, role, typ, rows))
    return operands


def _tile_operands(
    facts: PageFacts, params: list[dict[str, Any]], targets: Targets, unplaced: list[str]
) -> list[dict[str, Any]]:
    rows = page_rows(facts)
    operands: list[dict[str, Any]] = []
    # A reference page has no operand table: its syntax line names the operands instead.
    match_names(params, rows or _syntax_rows(facts))
    dst_name = _destination(params, rows, unplaced)
    for p in params:
        if p.get("events"):
            # the events an op waits on as what it does (TSYNC): the page lists them as an operand
            if p.get("operand"):
                operands.append(operand(p["operand"], "src", "!pto.event<...>", rows))
            continue
        name = p["operand"]
        if "dtype_of" in p or "value_type" in p:
            operands.append(operand(name, "scalar", "dtype", rows))
        elif "attr" in p:
            operands.append(enum_operand(name, p["attr"], targets, rows))
        else:
            role = "dst" if name == dst_name else (name if name in ("tmp", "mask") else "src")
            typ = (
                "!pto.partition_tensor_view<MxNxdtype>"
                if "Global" in p["type"]
                else "!pto.pipe<...>"
                if "Pipe" in p["type"]
                else "!pto.context"
                if any(w in p["type"] for w in ("Context", "Group", "Session"))
                else "!pto.tile<...>"
            )
            operands.append(operand(name, role, typ, rows, glob="Global" in p["type"]))
    operands.sort(key=lambda o: 0 if o["role"] == "dst" else 1)
    return operands


def _destination(params: list[dict[str, Any]], rows: dict[str, dict[str, str]], unplaced: list[str]) -> str:
    """The operand the main declaration writes: `dst`, else its first parameter ('' for a hint)."""
    # A hint (a GlobalTensor and a context, TPREFETCH_ASYNC) writes no operand: it has no dst.
    if any("Context" in str(p.get("type", "")) for p in params):
        return ""
    if params and not any(p.get("operand") == "dst" for p in params) and not params[0].get("events"):
        unplaced.append(
            f"no operand is called dst: the first parameter, {params[0]['operand']}, is taken as it"
        )
        rows.setdefault(params[0]["operand"], {})
        return str(params[0]["operand"])
    return "dst"


def operand(
    name: str, role: str, typ: str, rows: dict[str, dict[str, str]], glob: bool = False
) -> dict[str, Any]:
    """An operand entry: its kind read from its (assembly) type, its role and description from the
    operand table's row when there is one."""
    row = rows.get(name, {})
    typ = row.get("type") or typ
    if row.get("role") in _ROLES and (role == "attr") == (row["role"] == "attr"):
        role = row["role"]
    low = typ.lower()
    kind = (
        "global"
        if glob or "global" in low or "tensor_view" in low or "memref" in low
        else "events"
        if "!pto.event" in low
        else "context"
        if "ctx" in low or "context" in low or "!pto.group" in low or "session" in low or "!pto.pipe" in low
        else "tile"
        if "tile" in low
        else "vreg"
        if "vreg" in typ
        else "mask"
        if "mask" in typ
        else "attr"
        if role == "attr"
        else "scalar"
    )
    default = {
        "dst": "Destination.",
        "src": "Source operand.",
        "scalar": "Scalar operand.",
        "tmp": "Scratch tile.",
        "mask": "Predicate mask.",
        "attr": "Attribute.",
    }[role]
    description = " ".join((row.get("description") or default).split())
    return {"name": name, "kind": kind, "role": role, "asm_type": typ, "description": description}


def enum_operand(name: str, enum: str, targets: Targets, rows: dict[str, dict[str, str]]) -> dict[str, Any]:
    """An operand that takes a value of an enum of targets.yaml (of the enum's assembly type, if any)."""
    found = next((e for e in targets.enums if e.name == enum), None)
    asm = f"{found.asm}<...>" if found is not None and found.asm else "attr"
    return operand(name, "attr", asm, rows) | {"enum": enum}


_TMP_IN_EVENTS = re.compile(
    r"^A (?P<name>\w+) tile must be passed \(as the first argument after the documented"
)


def tmp_in_events(facts: PageFacts, operands: list[dict[str, Any]], intrinsic: dict[str, Any]) -> None:
    """A scratch tile passed at the head of the events pack is no parameter of the declaration; the
    page's rule line names it ("A `tmp` tile must be passed (as the first argument after ...)")."""
    for line in facts.constraints + facts.profile_restrictions:
        m = _TMP_IN_EVENTS.match(plain(line))
        if m is None:
            continue
        name = snake(m.group("name"))
        if name not in {o["name"] for o in operands}:
            operands.append(operand(name, "tmp", "!pto.tile<...>", page_rows(facts)))
        intrinsic["tmp_in_events"] = name
        return


def operands_of_params(
    params: list[dict[str, Any]], targets: Targets, rows: dict[str, dict[str, str]]
) -> list[dict[str, Any]]:
    """The operands a further declaration adds, one per parameter of its own."""
    out: list[dict[str, Any]] = []
    for p in params:
        if p.get("events"):
            continue
        name = p["operand"]
        if "dtype_of" in p or "value_type" in p:
            out.append(operand(name, "scalar", "dtype", rows))
        elif p.get("type") in {st.name for st in targets.structs}:  # a struct the form fills in
            out.append(operand(name, "dst", "context", rows) | {"kind": "context"})
        elif "attr" in p:
            out.append(enum_operand(name, p["attr"], targets, rows))
        else:
            # a further result (`dst_val`); an index tile beside the result (TCONCAT's `dst_idx`,
            # per-row counts) is not one
            dst = name == "dst" or (name.startswith("dst_") and not name.endswith("_idx"))
            role = "dst" if dst else ("tmp" if name in ("tmp", "dst_idx") else "src")
            glob = "Global" in p["type"]
            typ = "!pto.partition_tensor_view<MxNxdtype>" if glob else "!pto.tile<...>"
            out.append(operand(name, role, typ, rows, glob=glob))
    return out


def carried_by_template(
    facts: PageFacts,
    intrinsic: dict[str, Any],
    operands: list[dict[str, Any]],
    rows: dict[str, dict[str, str]],
) -> None:
    """A scalar the main declaration takes as a value template parameter (TCI's `descending`): the
    page's formula reads it by the parameter's name in snake case, and no function parameter does."""
    passed = {p.get("operand") for p in intrinsic["params"]}
    for t in intrinsic["template"]:
        name = carried(t)
        tex = "\\mathrm{" + name.replace("_", "\\_") + "}"
        if name and name not in passed and tex in (facts.math or ""):
            t["operand"] = name
            operands.append(operand(name, "scalar", str(t.get("type", "")), rows))


def carried(t: dict[str, Any]) -> str:
    """The parameter name a value template parameter would carry (`Addr` -> `addr`), or ''."""
    return snake(t["name"]) if t["kind"] == "value" else ""


def name_from_math(
    math: str, operands: list[dict[str, Any]], params: list[dict[str, Any]], unplaced: list[str]
) -> None:
    """A page without an operand table may name an operand in its formula only (`slope`, where the
    declaration and syntax say `scalar`): when the formula names one unknown operand and one
    operand is left unnamed by it, that operand takes the formula's name."""
    used = set(re.findall(r"\\mathrm\{(\w+)\}", math.replace(r"\_", "_")))
    known = {o["name"] for o in operands}
    unknown = [n for n in used - known if OPERAND_NAME.match(n) and n not in semantics.FUNCTIONS]
    spare = [o for o in operands if o["name"] not in used and o["role"] in ("src", "scalar")]
    if len(unknown) != 1 or len(spare) != 1:
        return
    old, new = spare[0]["name"], unknown[0]
    spare[0]["name"] = new
    for p in params:
        if p.get("operand") == old:
            p["operand"] = new
    unplaced.append(f"operand {old} named {new}, as the formula calls it")
