"""The one reader of C++ intrinsic declarations, for headers and pages alike: where declarations
are (`DECLARATION`, `page_declarations`), their bodies, their comma-separated lists, their template
parameters, and a page's declaration read into spec entries (`parse_signature`)."""

from __future__ import annotations

import re
from typing import Any

from .naming import snake
from .pagefacts import normalise_signature
from .problem import ImportProblem

# A declaration of a header (`PTO_INST` or `PTO_INTERNAL`): its template head, name and parameters.
DECLARATION = re.compile(
    r"template\s*<((?:[^<>]|<(?:[^<>]|<[^<>]*>)*>)*)>\s*PTO_(?:INST|INTERNAL)\s+"
    r"(?:RecordEvent|comm::AsyncEvent|AsyncEvent|bool|void|std::enable_if_t<(?:[^<>]|<[^<>]*>)*>)\s+(\w+)\s*\(([^)]*)\)",
    re.S,
)

# A declaration as a page writes it, one to a statement (the qualifier may be left out).
_PAGE_DECLARATION = re.compile(
    r"^template\s*<(?:[^;{}])*?>\s*(?:PTO_INST|PTO_INTERNAL)?\s*(?:RecordEvent|comm::AsyncEvent|AsyncEvent|bool|void)\s+(\w+)"
    r"\s*\([^;{}]*\)\s*;",
    re.MULTILINE,
)


def split_top_level(text: str, opening: str = "<(", closing: str = ">)") -> list[str]:
    """The comma-separated items of a list, split at the commas outside brackets (<> and () unless
    told), each stripped."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in opening
        depth -= ch in closing
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return [p for p in (*out, cur.strip()) if p]


def body_after(text: str, start: int) -> str:
    """The brace-balanced body that follows `start` (empty for a bare declaration)."""
    i = start
    while i < len(text) and text[i] not in "{;":
        i += 1
    return "" if i >= len(text) or text[i] == ";" else enclosed(text, i)


def enclosed(text: str, open_at: int) -> str:
    """Text inside the bracket (`(` or `{`) opened at `open_at`; to the end when it never closes."""
    opening = text[open_at]
    closing = {"(": ")", "{": "}"}[opening]
    depth = 0
    for j in range(open_at, len(text)):
        depth += text[j] == opening
        depth -= text[j] == closing
        if depth == 0:
            return text[open_at + 1 : j]
    return text[open_at + 1 :]


_TYPE_PARAM = re.compile(r"typename\s*(\.\.\.)?\s*(\w+)\s*(?:=\s*(.*))?")


def template_param(text: str) -> tuple[str, str, str | None]:
    """(kind, name, default) of one template parameter, spelled either way (`typename... E` or
    `typename...E`): kind `typename`, `pack`, `value`, or `guard` for a `std::enable_if_t` (no name)."""
    t = " ".join(text.split())
    if t.startswith(("std::enable_if", "enable_if")):
        return "guard", "", None
    m = _TYPE_PARAM.fullmatch(t)
    if m:
        return "pack" if m.group(1) else "typename", m.group(2), m.group(3)
    decl, eq, default = t.partition("=")
    return "value", decl.split()[-1], default.strip() if eq else None


def value_type(text: str) -> str:
    """The type of a value template parameter (`pto::RoundMode mode = ...` -> `pto::RoundMode`)."""
    return " ".join(text.partition("=")[0].split()[:-1])


def page_declarations(text: str, intrinsic: str) -> list[str]:
    """Every declaration of `intrinsic` anywhere on a page, normalised (`normalise_signature`)."""
    return [
        normalise_signature(m.group(0)) for m in _PAGE_DECLARATION.finditer(text) if m.group(1) == intrinsic
    ]


_SIGNATURE = re.compile(
    r"template<(.*)>(PTO_INST|PTO_INTERNAL)? ?"
    r"(?:(RecordEvent|comm::AsyncEvent|AsyncEvent|bool|void) |(std::enable_if_t<.*>))(\w+)\((.*)\);?$"
)


def parse_signature(sig: str) -> tuple[str, str, str, list[dict[str, Any]], list[dict[str, Any]]]:
    """(qualifier, return type, name, template params, params) of a normalised C++ declaration."""
    m = _SIGNATURE.match(sig)
    if m is None:
        raise ImportProblem(f"cannot read the C++ declaration: {sig}")
    targs, qual, returns, returns_if, name, params = m.groups()
    template = _template(targs)
    # A form that takes some types only as tiles, in an `enable_if_t` return type (TASSIGN<Addr>).
    for entry in template:
        if entry["name"] in re.findall(r"is_tile_data_v<(\w+)>", returns_if or ""):
            entry["tile_only"] = True  # read by the overload reader
    kinds = {t["name"]: t["kind"] for t in template}
    return (
        qual or "PTO_INST",
        returns or "void",
        name,
        template,
        [_param(p, kinds, sig) for p in split_top_level(params)],
    )


# The terms of an `enable_if_t` guard the spec states (`guard`): a tile, a tensor, a grid pipe, events.
_GUARD_TERM = re.compile(r"is_(?:tile_data|global_data|grid_pipe)_v<(\w+)>|all_events_v<(\w+)\.\.\.>")


def _template(targs: str) -> list[dict[str, Any]]:
    """The template parameters as spec entries; those the declaration's guard names (the types it
    takes only as tiles, the pack only as events) marked with their place in it (`take_guard`)."""
    template: list[dict[str, Any]] = []
    guard: list[str] = []
    for t in split_top_level(targs):
        kind, name, default = template_param(t)
        if kind == "guard":
            guard += [a or b for a, b in _GUARD_TERM.findall(t)]
            continue
        entry: dict[str, Any] = {"name": name, "kind": kind}
        if kind == "pack" and guard:
            entry["after_guard"] = True  # the guard precedes the pack (`guard_before_pack`)
        if kind == "value":
            entry["type"] = value_type(t)
        if default:
            entry["default"] = default
        template.append(entry)
    for entry in template:
        if entry["name"] in guard:
            entry["guard"] = guard.index(entry["name"])
    return template


def take_guard(template: list[dict[str, Any]]) -> tuple[list[str], bool]:
    """The declaration's guard (`parse_signature` marks the template parameters it names), in order,
    and whether it precedes the events pack; the marks are removed."""
    marked = sorted((t.pop("guard"), t["name"]) for t in template if "guard" in t)
    before_pack = any([t.pop("after_guard", False) for t in template])
    return [name for _, name in marked], before_pack and bool(marked)


BUILTIN_SCALARS = frozenset(
    {"bool", "int", "float", "double", "half", "size_t"}
    | {f"{s}int{b}_t" for s in ("", "u") for b in (8, 16, 32, 64)}
)


def _param(p: str, kinds: dict[str, str], sig: str) -> dict[str, Any]:
    """One function parameter of a normalised declaration as a spec entry."""
    if "&..." in p:
        ptype, pname = p.split("&...")
        return {"name": pname, "type": ptype, "events": True}
    if p.startswith("typename "):
        owner, pname = re.match(r"typename (\w+)::DType (\w+)", p).groups()  # type: ignore[union-attr]
        return {"name": pname, "dtype_of": owner, "operand": snake(pname)}
    if "&" in p:
        ptype, pname = p.split("&", 1)
        const = {"const": True} if ptype.startswith("const ") else {}
        return {"name": pname, "type": ptype.removeprefix("const "), "operand": snake(pname), **const}
    p, _, default = (x.strip() for x in p.partition("="))  # `uint16_t indexRow = 0`
    if " " not in p:
        raise ImportProblem(f"cannot read the C++ parameter {p!r} in: {sig}")
    ptype, pname = p.rsplit(" ", 1)
    ptype = ptype.removeprefix("const ")
    key = "value_type" if kinds.get(ptype) == "typename" or ptype in BUILTIN_SCALARS else "attr"
    return {"name": pname, key: ptype, "operand": snake(pname), **({"default": default} if default else {})}
