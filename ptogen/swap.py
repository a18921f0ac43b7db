"""The swap check: upstream's own include tree with the covered intrinsics of its `pto_instr.hpp`
replaced by the generated definitions, so that upstream's CPU ST cases run the generated
declarations, checks and dispatch over upstream's own CPU backend (`ptogen upstream-st --swap`).

Everything else of upstream's header stays as it is, including its MAP_INSTR_IMPL macros (which
trace each call on its simulator). The generated definitions bring two ptogen-only includes: the
check support and the profile checks, found on the include path after upstream's tree.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from .importer.cpp import DECLARATION, body_after

_OP_COMMENT = re.compile(r"^// (pto\.\w+) \(specs/[^)]*\)$", re.M)
_END = re.compile(r"^\}\s*// namespace pto\s*$", re.M)
_ANCHOR = '#include "pto/common/pto_instr_impl.hpp"'
# Upstream's MAP_INSTR_IMPL macros trace each call already, so the generated trace hook is a no-op there.
EXTRA_INCLUDES = (
    "#include <pto/common/check_support.hpp>\n#include <pto/profiles/active_profile.hpp>\n"
    "#ifndef PTO_TRACE_INSTR\n#define PTO_TRACE_INSTR(API, ROLES, ...) static_cast<void>(0)\n#endif\n"
)


def generated_blocks(generated: str) -> dict[str, str]:
    """Intrinsic name -> every definition the generated header gives it (twins and public forms)."""
    starts = [m.start() for m in _OP_COMMENT.finditer(generated)]
    end = _END.search(generated, starts[-1] if starts else 0)
    bounds = [*starts, end.start() if end else len(generated)]
    out = {}
    for a, b in zip(bounds, bounds[1:], strict=False):
        block = generated[a:b]
        public = re.search(r"PTO_INST\s+(?:RecordEvent|void|comm::AsyncEvent)\s+(\w+)\s*\(", block)
        if public:
            out[public.group(1)] = block.rstrip() + "\n"
    return out


def _conditional(text: str) -> list[tuple[int, int]]:
    """Spans of `#if`/`#ifdef` regions below the include guard (nested regions included)."""
    spans: list[tuple[int, int]] = []
    stack: list[int] = []
    for m in re.finditer(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|endif)\b.*$", text, re.M):
        if m.group(1) == "endif":
            if stack:
                start = stack.pop()
                if stack:  # the outermost region is the include guard
                    spans.append((start, m.end()))
        else:
            stack.append(m.start())
    return spans


def target_conditional(upstream: str, names: set[str]) -> set[str]:
    """Intrinsics some of whose upstream declarations exist only for some targets (inside `#if`):
    those stay upstream's, since the generated header declares every form for every target."""
    regions = _conditional(upstream)
    return {
        m.group(2)
        for m in DECLARATION.finditer(upstream)
        if m.group(2) in names and any(a <= m.start() < b for a, b in regions)
    }


def swap_header(upstream: str, generated: str) -> tuple[str, list[str], list[str]]:
    """Upstream's header with each intrinsic the generated one defines replaced (at the place of its
    first definition); the names replaced, and the names kept upstream's (target-conditional)."""
    if _ANCHOR not in upstream:
        raise ValueError(f"upstream's pto_instr.hpp no longer includes {_ANCHOR}")
    blocks = generated_blocks(generated)
    kept = target_conditional(upstream, set(blocks))
    spans: list[tuple[int, int, str]] = []
    for m in DECLARATION.finditer(upstream):
        name = m.group(2)
        if name not in blocks or name in kept:
            continue
        body = body_after(upstream, m.end())
        end = upstream.index(body, m.end()) + len(body) + 1 if body else m.end()
        spans.append((m.start(), end, name))
    out, pos, placed = [], 0, set()
    for start, end, name in spans:
        out.append(upstream[pos:start])
        if name not in placed:
            out.append(blocks[name])
            placed.add(name)
        pos = end
    out.append(upstream[pos:])
    text = "".join(out).replace(_ANCHOR, _ANCHOR + "\n" + EXTRA_INCLUDES, 1)
    return text, sorted(placed), sorted(kept)


def swapped_tree(upstream: Path, generated_header: Path, dest: Path) -> tuple[list[str], list[str]]:
    """Copy upstream's include/ to `dest` with the swapped pto_instr.hpp; returns the swapped names
    and the covered names kept upstream's."""
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(upstream / "include", dest)
    header = dest / "pto/common/pto_instr.hpp"
    generated = generated_header.read_text(encoding="utf-8")
    text, names, kept = swap_header(header.read_text(encoding="utf-8"), generated)
    header.write_text(text, encoding="utf-8")
    return names, kept
