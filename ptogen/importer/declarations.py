"""C++ intrinsic declarations reduced to their shape, to compare headers that name things differently.

A shape keeps what decides which calls a declaration accepts: the kinds, types and defaults of its
template parameters and the types of its function parameters, with type parameters renamed by
position (`T0`, `T1`, … and `P` for the pack), and `std::enable_if_t` guards dropped. The shape pairs
a declaration of one header with the other's; the paired declarations are then compared token for
token (`header_drift`), so that guards, names, the qualifier and the return type are differences.

Each declaration's dispatch (the `<NAME>_IMPL` call its body makes, through upstream's
MAP_INSTR_IMPL macros or directly) is reduced the same way by `ptogen.lower.dispatch.normalized`:
the implementation, its template arguments and its call arguments by position.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..lower.dispatch import Call, normalized
from .cpp import DECLARATION, body_after, enclosed, split_top_level, template_param

if TYPE_CHECKING:
    from ..spec.load import SpecSet


def shape(template: str, params: str) -> str:
    renamed: dict[str, str] = {}
    tshape = []
    for t in split_top_level(template):
        kind, name, default = template_param(t)
        if kind == "guard":
            continue
        if kind == "value":  # keep its type and default, not its name
            tshape.append(re.sub(r"\s+\w+(\s*=|$)", r" _\1", " ".join(t.split())))
            continue
        renamed[name] = "P" if kind == "pack" else f"T{len(renamed)}"
        tshape.append(
            "typename..." if kind == "pack" else "typename" + (" = _" if default is not None else "")
        )
    pshape = []
    for p in (" ".join(x.split()) for x in split_top_level(params)):
        spelled = re.sub(r"\s*\b\w+$", "", p)
        spelled = re.sub(r"\b\w+\b", lambda w: renamed.get(w.group(0), w.group(0)), spelled)
        pshape.append(spelled.replace(" ", ""))
    return f"<{', '.join(tshape)}>({', '.join(pshape)})"


_MAP = re.compile(r"\bMAP_INSTR_IMPL(_T)?(_OUTS|_ROLES)?\s*\(")
_DIRECT = re.compile(r"\b(\w+)_IMPL\s*(<(?:[^<>]|<(?:[^<>]|<[^<>]*>)*>)*>)?\s*\(")


def parse_dispatch(body: str) -> Call | None:
    """The `_IMPL` call a body makes, or None when it makes none."""
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    m = _MAP.search(body)
    if m:
        parts = [" ".join(x.split()) for x in split_top_level(enclosed(body, m.end() - 1))]
        impl, rest = parts[0], parts[1:]
        targs: list[str] = []
        roles = None
        if m.group(1):
            t = rest.pop(0)
            inner = re.fullmatch(r"PTO_TEMPLATE_ARGS\((.*)\)", t, re.S)
            targs = [" ".join(x.split()) for x in split_top_level(inner.group(1))] if inner else [t]
        if m.group(2) == "_ROLES":
            roles = rest.pop(0).strip('"')
        elif m.group(2) == "_OUTS":
            rest.pop(0)
        return Call(impl, "map", roles, targs, rest)
    m = _DIRECT.search(body)
    if m:
        targs = [" ".join(x.split()) for x in split_top_level(m.group(2)[1:-1])] if m.group(2) else []
        args = [" ".join(x.split()) for x in split_top_level(enclosed(body, m.end() - 1))]
        return Call(m.group(1), "direct", None, targs, args)
    return None


def _names(template: str, params: str) -> tuple[list[tuple[str, str]], list[str]]:
    """(name, kind) of each template parameter and the name of each function parameter."""
    tnames = [
        (name, kind) for kind, name, _ in map(template_param, split_top_level(template)) if kind != "guard"
    ]
    pnames = [re.findall(r"\w+", p)[-1] for p in split_top_level(params) if "..." not in p]
    return tnames, pnames


@dataclass(frozen=True)
class Declaration:
    """One public declaration of an intrinsic: its shape (what pairs it with another header's), its
    normalized dispatch, and its tokens (template head, qualifier, return type, name, parameters)."""

    name: str
    shape: str
    dispatch: str | None
    tokens: tuple[str, ...]

    @property
    def text(self) -> str:
        return " ".join(self.tokens)


_TOKEN = re.compile(r"\w+|::|\.\.\.|&&|\|\||\S")


def tokens(declaration: str) -> tuple[str, ...]:
    """C++ tokens of a declaration, so that two spellings that differ in whitespace only compare equal."""
    return tuple(_TOKEN.findall(declaration))


def public_declarations(header: str) -> list[Declaration]:
    """Every public declaration of a header's text, in order. A generated header's public declaration
    forwards to its profiled twin just above it, whose body dispatches."""
    text = re.sub(r"//\s*namespace profiled", "/*end profiled*/", header)
    text = re.sub(r"//[^\n]*", "", text)
    twins = [
        (m.start(), m.end()) for m in re.finditer(r"namespace profiled \{.*?/\*end profiled\*/", text, re.S)
    ]
    out: list[Declaration] = []
    for m in DECLARATION.finditer(text):
        if any(a <= m.start() < b for a, b in twins):
            continue
        body = body_after(text, m.end())
        call = parse_dispatch(body)
        if call is None and "profiled::" in body:
            before = [b for b in twins if b[1] <= m.start()]
            call = parse_dispatch(text[before[-1][0] : before[-1][1]]) if before else None
        tnames, pnames = _names(m.group(1), m.group(3))
        dispatch = normalized(call, tnames, pnames) if call else None
        out.append(Declaration(m.group(2), shape(m.group(1), m.group(3)), dispatch, tokens(m.group(0))))
    return out


def declarations(header: str) -> dict[str, list[tuple[str, str | None]]]:
    """Intrinsic name -> (shape, normalized dispatch) of each public declaration."""
    out: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
    for d in public_declarations(header):
        out[d.name].append((d.shape, d.dispatch))
    return dict(out)


def declaration_shapes(header: str) -> dict[str, list[str]]:
    """Intrinsic name -> shapes of its public declarations in a header's text."""
    # The generated header's profiled twins (first parameter `Profile`) are not public declarations.
    text = re.sub(r"namespace profiled \{.*?\} // namespace profiled", "", header, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    out: dict[str, list[str]] = defaultdict(list)
    for m in DECLARATION.finditer(text):
        out[m.group(2)].append(shape(m.group(1), m.group(3)))
    return dict(out)


@dataclass
class Drift:
    lines: list[str]
    total: int  # upstream declarations of the covered intrinsics
    declared: int  # ... that the generated header declares (the same shape: kinds and types)
    identical: int  # ... token for token: template head, guards, names, qualifier, return type
    dispatched: int  # ... that it declares and dispatches as upstream does
    unargued: int = 0  # differences for which no spec note is given


def token_difference(upstream: tuple[str, ...], ours: tuple[str, ...]) -> str:
    """Where two declarations' tokens differ: each changed span with a token of context either side."""
    import difflib

    spans = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=upstream, b=ours, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        a0, b0 = max(i1 - 1, 0), max(j1 - 1, 0)
        theirs = " ".join(upstream[a0 : i2 + 1])
        mine = " ".join(ours[b0 : j2 + 1])
        spans.append(f"upstream `{theirs}`, the specs `{mine}`")
    return "; ".join(spans)


def header_drift(upstream: str, generated: str, notes: dict[str, tuple[str, str]] | None = None) -> Drift:
    """Report lines for every covered intrinsic whose declarations or dispatch differ between
    upstream's hand-written header and the generated one, with the counts. Declarations are paired
    by shape, then compared token for token (whitespace aside): guards, template and parameter
    names, qualifier and return type are differences.

    `notes` maps an intrinsic to (spec path, the spec note that argues why its declarations differ
    from upstream's); each difference of such an intrinsic is listed with that note."""
    theirs: dict[str, list[Declaration]] = defaultdict(list)
    ours: dict[str, list[Declaration]] = defaultdict(list)
    for d in public_declarations(upstream):
        theirs[d.name].append(d)
    for d in public_declarations(generated):
        ours[d.name].append(d)
    drift = Drift([], 0, 0, 0, 0)

    def differs(name: str, line: str) -> None:
        drift.lines.append(line)
        argued = (notes or {}).get(name)
        if argued is None:
            drift.unargued += 1
            drift.lines.append("    no spec note argues it")
        else:
            drift.lines.append(f"    argued in {argued[0]}: {' '.join(argued[1].split())}")

    for name in sorted(ours):
        # Forms of one shape told apart by their guards alone (TPUSH's tile and GM forms) pair with
        # the one that matches token for token when there is one.
        mine: dict[str, list[Declaration]] = defaultdict(list)
        for d in ours[name]:
            mine[d.shape].append(d)
        upstream_forms = theirs.get(name, [])
        drift.total += len(upstream_forms)
        if name not in theirs:
            differs(name, f"{name}: not declared upstream")
            continue
        for up in upstream_forms:
            same = mine.get(up.shape, [])
            gen = next((d for d in same if d.tokens == up.tokens), same[0] if same else None)
            if gen is None:
                differs(name, f"{name}: upstream declares {name}{up.shape}; the specs do not generate it")
                continue
            drift.declared += 1
            if gen.tokens == up.tokens:
                drift.identical += 1
            else:
                differs(
                    name,
                    f"{name}{up.shape}: declared otherwise: {token_difference(up.tokens, gen.tokens)}",
                )
            if gen.dispatch == up.dispatch:
                drift.dispatched += 1
            else:
                dispatched = f"upstream dispatches to {up.dispatch}; the specs dispatch to {gen.dispatch}"
                differs(name, f"{name}{up.shape}: {dispatched}")
        shapes = {d.shape for d in upstream_forms}
        for s in mine:
            if s not in shapes:
                differs(name, f"{name}: the specs generate {name}{s}; upstream does not declare it")
    return drift


# How a spec note names what it argues: the header it departs from.
_ARGUES = re.compile(r"pto_instr\.hpp|upstream's header", re.I)


def arguing_notes(specs: SpecSet) -> dict[str, tuple[str, str]]:
    """Intrinsic name -> (spec path, the first of its spec's notes that speaks of upstream's header):
    the note that argues where the generated declarations differ from upstream's."""
    out = {}
    for op in specs.ops:
        intr = op.spec.intrinsic
        note = next((n for n in op.spec.notes if _ARGUES.search(" ".join(n.split()))), None)
        if intr is not None and note is not None:
            out[intr.name] = (op.path, note)
    return out
