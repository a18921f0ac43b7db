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
    text = re.sub(r"//[^\n]*", "", header)
    text = re.sub(r"namespace profiled \{.*?\} // namespace profiled", "", text, flags=re.S)
    out: dict[str, list[str]] = defaultdict(list)
    for m in _DECL.finditer(text):
        out[m.group(2)].append(shape(m.group(1), m.group(3)))
    return dict(out)
