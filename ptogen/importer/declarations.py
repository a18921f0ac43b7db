"""C++ intrinsic declarations reduced to their shape, to compare headers that name things differently.

A shape keeps what decides which calls a declaration accepts: the kinds, types and defaults of its
template parameters and the types of its function parameters, with type parameters renamed by
position (`T0`, `T1`, … and `P` for the pack). `std::enable_if_t` guards are dropped: they only keep
overloads apart. Used to measure how many of upstream's declarations the generated header has.
"""

from __future__ import annotations

import re
from collections import defaultdict

_DECL = re.compile(
    r"template\s*<((?:[^<>]|<(?:[^<>]|<[^<>]*>)*>)*)>\s*PTO_(?:INST|INTERNAL)\s+RecordEvent\s+(\w+)\s*\(([^)]*)\)",
    re.S,
)


def _split(text: str) -> list[str]:
    """Split at top-level commas (not inside <> or ())."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "<("
        depth -= ch in ">)"
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return out + ([cur] if cur.strip() else [])


def shape(template: str, params: str) -> str:
    renamed: dict[str, str] = {}
    tshape = []
    for t in (" ".join(x.split()) for x in _split(template)):
        if t.startswith("std::enable_if_t"):
            continue
        m = re.fullmatch(r"typename(\.\.\.)?\s+(\w+)", t)
        if m:
            renamed[m.group(2)] = "P" if m.group(1) else f"T{len(renamed)}"
            tshape.append("typename..." if m.group(1) else "typename")
        else:  # a value parameter: keep its type and default, not its name
            tshape.append(re.sub(r"\s+\w+(\s*=|$)", r" _\1", t))
    pshape = []
    for p in (" ".join(x.split()) for x in _split(params)):
        spelled = re.sub(r"\s*\b\w+$", "", p)
        spelled = re.sub(r"\b\w+\b", lambda w: renamed.get(w.group(0), w.group(0)), spelled)
        pshape.append(spelled.replace(" ", ""))
    return f"<{', '.join(tshape)}>({', '.join(pshape)})"


def declaration_shapes(header: str) -> dict[str, list[str]]:
    """Intrinsic name -> shapes of its public declarations in a header's text."""
    # The generated header's profiled twins (first parameter `Profile`) are not public declarations.
    text = re.sub(r"namespace profiled \{.*?\} // namespace profiled", "", header, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    out: dict[str, list[str]] = defaultdict(list)
    for m in _DECL.finditer(text):
        out[m.group(2)].append(shape(m.group(1), m.group(3)))
    return dict(out)


def header_drift(upstream: str, generated: str) -> tuple[list[str], int, int]:
    """Report lines for every covered intrinsic whose declarations differ between upstream's
    hand-written header and the generated one; also the counts (upstream declarations of covered
    intrinsics, and how many of them the generated header has)."""
    theirs, ours = declaration_shapes(upstream), declaration_shapes(generated)
    lines: list[str] = []
    total = found = 0
    for name in sorted(ours):
        missing = [s for s in theirs.get(name, []) if s not in ours[name]]
        extra = [s for s in ours[name] if s not in theirs.get(name, [])]
        total += len(theirs.get(name, []))
        found += len(theirs.get(name, [])) - len(missing)
        if name not in theirs:
            lines.append(f"{name}: not declared upstream")
            continue
        for s in missing:
            lines.append(f"{name}: upstream declares {name}{s}; the specs do not generate it")
        for s in extra:
            lines.append(f"{name}: the specs generate {name}{s}; upstream does not declare it")
    return lines, total, found
