"""What the site's search knows of each op page beyond its text: the names a kernel writer types
(the C++ name, with and without its leading `T`), the other ops' names hidden in its name
(`relu` in TSUBRELU, `matmul` in TMATMUL_ACC), and its summary, category and unit.

The build (docs_hook.py) adds these to the search index as fields of the page's first entry, and
the site's search worker ranks on them: a page whose name is the query first, then pages whose
name starts with it (shorter names first), then pages whose name contains another op's name that
matches, then pages whose category or unit matches, then pages whose summary does, then the rest in
the theme's order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..lower.views import OpView, ProjectView
from .site import in_docs

SEARCH_TERMS = "search_terms.json"  # beside mkdocs.yml; read by the build, not served
# Shorter names hide in too many others by chance ("or" in TCOLARGMAX).
MIN_PART = 3


@dataclass(frozen=True)
class SearchTerms:
    page: str  # relative to docs_dir
    names: list[str]  # what the op is called: the query that should find it first
    parts: list[str]  # other ops' names inside its name
    category: str  # the titles of its category and unit
    summary: str  # shown under the result's title, and searched


def _base(op: OpView) -> str:
    """The C++ name without the leading `T` of a tile intrinsic, lower case (TMATMUL_ACC: matmul_acc)."""
    name = op.name.lower()
    return name[1:] if op.intrinsic is not None and name.startswith("t") and len(name) > 1 else name


def _names(op: OpView) -> list[str]:
    out: list[str] = []
    for n in (op.name.lower(), _base(op), op.spec.short.lower()):
        if n not in out:
            out.append(n)
    return out


def _plain(markdown: str) -> str:
    """The words of a Markdown phrase: link texts without their targets, no code or emphasis marks."""
    return re.sub(r"[`*]", "", re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown))


def search_index_terms(project: ProjectView) -> dict[str, dict[str, object]]:
    """Per page (relative to docs_dir), the fields the build adds to its first search entry."""
    return {
        t.page: {
            "names": " ".join(t.names),
            "parts": " ".join(t.parts),
            "category": t.category,
            "summary": t.summary,
        }
        for t in search_terms(project)
    }


def search_terms(project: ProjectView) -> list[SearchTerms]:
    vocabulary = sorted(
        {w for op in project.ops for w in (_base(op), *_base(op).split("_")) if len(w) >= MIN_PART}
    )
    rows = []
    for op in project.ops:
        names = _names(op)
        flat = _base(op).replace("_", "")
        parts = [w for w in vocabulary if w not in names and w in flat]
        rows.append(
            SearchTerms(
                page=in_docs(op.doc_path),
                names=names,
                parts=parts,
                category=" ".join(g.title for g in (op.category, op.unit) if g is not None),
                summary=_plain(op.doc.summary),
            )
        )
    return rows
