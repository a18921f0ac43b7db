"""A page's C++ declarations: which is the main form (the spec's `intrinsic`), which are further
forms of it (overloads), and the declaration written from the operands when the page gives none."""

from __future__ import annotations

import re
from typing import Any

from .cpp import page_declarations, parse_signature, take_guard
from .naming import OPERAND_NAME, snake
from .operands import carried, page_rows
from .pagefacts import PageFacts
from .problem import ImportProblem

# (comment, qualifier, return type, name, template, params) of one declaration.
Form = tuple[str, str, str, str, list[dict[str, Any]], list[dict[str, Any]]]


def _declarations(facts: PageFacts, unplaced: list[str]) -> list[Form]:
    """The page's declarations that can be read: (comment, qualifier, returns, name, template, params)."""
    out = []
    comments = facts.signature_comments + [""] * len(facts.signatures)
    for sig, comment in zip(facts.signatures, comments, strict=False):
        try:
            out.append((comment, *parse_signature(sig)))
        except ImportProblem as exc:
            unplaced.append(str(exc))
    return out


def _main_first(decls: list[Form], unplaced: list[str]) -> list[Form]:
    """The main declaration first, then the overloads that carry all its operands.

    Overloads only add operands, so the main form is the one whose parameters every other form
    has (the page's first when it qualifies). Declarations of another intrinsic, or that lack a
    main operand, are reported, not kept."""
    if not decls:
        return decls
    names = [{p["name"] for p in d[5] if not p.get("events") or p.get("operand")} for d in decls]
    waits = {p["name"] for d in decls for p in d[5] if p.get("events") and p.get("operand")}
    every = set().union(*names)
    for d, n in zip(decls, names, strict=True):  # a parameter passed as a template value (TASSIGN<Addr>)
        n |= {carried(t) for t in d[4] if carried(t) in every - n}
    # A form may drop the events it would wait on (TSYNC<Op>()): the main form is the one whose other
    # parameters every form has, and which has some if any form does.
    cores = [n - waits for n in names]
    main = next((i for i, n in enumerate(names) if all(cores[i] <= m for m in names) and (n or not every)), 0)
    if main and _drops_one_tile(decls[0], decls[main], names[0], names[main]):
        main = 0  # the page's first declaration, which a later one passes all but one tile of (TSCATTER)
    out = [decls[main]]
    for i, d in enumerate(decls):
        if i == main:
            continue
        lacks = names[main] - names[i] - waits
        if d[3] == decls[main][3] and _in_place(decls[main][5], d[5], lacks):
            out.append(d)
            continue
        if d[3] == decls[main][3] and _drops_one_tile(decls[main], d, names[main], names[i]):
            out.append(d)
            continue
        if d[3] == decls[main][3] and _same_destination(decls[main], d):
            out.append(d)  # a form of its own over the same destination (TMRGSORT's lists): it drops
            continue  # what it lacks (`overloads`)
        if d[3] != decls[main][3] or len(lacks) > len(names[i] - names[main]) or len(lacks) > 1:
            unplaced.append(
                f"declaration {d[3]}({', '.join(p['name'] for p in d[5])}) not kept as an overload"
            )
            continue
        out.append(d)
    return out


def _drops_one_tile(
    first: Form,
    other: Form,
    first_names: set[str],
    other_names: set[str],
) -> bool:
    """Whether `other` (a declaration of the same intrinsic) passes every parameter of the page's
    first declaration but one tile, and nothing else: a form that drops an operand (TSCATTER's mask
    form drops `indexes`), which the first declaration, listed first, is the main form of."""
    lacks = first_names - other_names
    tiles = {p["name"] for p in first[5] if "type" in p and not p.get("events")}
    return first[3] == other[3] and other_names < first_names and len(lacks) == 1 and lacks <= tiles


def _same_destination(
    main: Form,
    other: Form,
) -> bool:
    """Whether `other` passes the main declaration's first tile parameter (its destination) under
    the same name and type parameter, as a form that drops some main operands does."""
    first = next((p for p in main[5] if "type" in p and not p.get("events")), None)
    return first is not None and any(p["name"] == first["name"] for p in other[5] if "type" in p)


def _in_place(main: list[dict[str, Any]], form: list[dict[str, Any]], lacks: set[str]) -> bool:
    """Whether a declaration passes one tile where the main one passes two of that type, and is
    otherwise the main one's (TMATMUL_ACC(cMatrix, ...) for cOutMatrix and cInMatrix): an in-place
    form, which drops the second."""
    types = {p["name"]: p.get("type") for p in main}
    extra = [p for p in form if p["name"] not in types and not p.get("events")]
    lacking = [p for p in main if p["name"] in lacks]
    return (
        len(lacking) == 2
        and len(extra) == 1
        and "type" in extra[0]
        and lacking[0].get("type") == lacking[1].get("type") == extra[0]["type"]
    )


def _default_declaration(
    name: str, facts: PageFacts, unplaced: list[str]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Some pages give no declaration (or only a "Declared in" line): one tile type per operand of
    the page's syntax line, in its order (destination first), as every documented tile op does."""
    names: list[str] = []
    for line in facts.syntax.get("ssa", []) + facts.syntax.get("dps", []) + facts.syntax.get("pto_asm", []):
        for found in re.findall(r"%(\w+)", line):
            if OPERAND_NAME.match(snake(found)) and snake(found) not in names:
                names.append(snake(found))
    rows = [n for n, row in page_rows(facts).items() if row.get("type", "tile").lower() != "enum"]
    if rows:  # the operand table is the better source; syntax lines may use placeholder names
        names = [n for n in names if n in rows] + [n for n in rows if n not in names]
    names = [n for n in names if not n.startswith("arg")]
    if "dst" not in names:
        names.insert(0, "dst")
    names.sort(key=lambda n: n != "dst")
    if len(names) < 2:
        names.append("src")
    template = [{"name": f"TileData{n.title().replace('_', '')}", "kind": "typename"} for n in names]
    params: list[dict[str, Any]] = [
        {"name": n, "type": t["name"], "operand": n} for n, t in zip(names, template, strict=True)
    ]
    template.append({"name": "WaitEvents", "kind": "pack"})
    params.append({"name": "events", "type": "WaitEvents", "events": True})
    unplaced.append(
        f"the page gives no C++ declaration of {name}: one was written from its operands "
        f"({', '.join(names)}); check it against include/pto/common/pto_instr.hpp"
    )
    return template, params


def read_intrinsic(
    facts: PageFacts, text: str, mnemonic: str, unplaced: list[str]
) -> tuple[dict[str, Any], list[Form]]:
    """The spec's `intrinsic` (its main form; overloads are added once the operands are known) and
    the further forms the page declares."""
    if not facts.signatures:
        facts.signatures = page_declarations(text, mnemonic.split(".", 1)[1].upper())
    found = _declarations(facts, unplaced)
    only_events = bool(found) and all(all(p.get("events") for p in d[5]) for d in found)
    if only_events or any("!pto.event" in line for forms in facts.syntax.values() for line in forms):
        # the page's syntax takes events as operands, or no declaration takes anything else (TSYNC):
        # its events pack carries them
        for *_, decl_params in found:
            for param in decl_params:
                if param.get("events"):
                    param["operand"] = snake(param["name"])
    declarations = _main_first(found, unplaced) if found else []
    if not declarations:
        name = mnemonic.split(".", 1)[1].upper()
        template, params = _default_declaration(name, facts, unplaced)
        return {"name": name, "template": template, "params": params}, []
    _, qual, returns, name, template, params = declarations[0]
    for entry in template:
        entry.pop("tile_only", None)  # only an overload states it
    guard, before_pack = take_guard(template)
    intrinsic: dict[str, Any] = {"name": name}
    if qual != "PTO_INST":
        intrinsic["qualifier"] = qual
    if returns != "RecordEvent":
        intrinsic["returns"] = returns
    if guard:
        intrinsic["guard"] = guard
    if before_pack:
        intrinsic["guard_before_pack"] = True
    intrinsic["template"] = template
    intrinsic["params"] = params
    return intrinsic, declarations[1:]
