"""A page's mnemonic and the instruction set of specs/targets.yaml it belongs to (or the entry to
add there for a set not yet listed)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..spec.model import InstructionSetDef, Targets
from .pagefacts import PageFacts
from .problem import ImportProblem


def identify(
    facts: PageFacts, targets: Targets, name_hint: str, unplaced: list[str]
) -> tuple[str, InstructionSetDef]:
    """The op's mnemonic (from the title, else the file name `name_hint`) and its instruction set."""
    mnemonic = facts.mnemonic or _mnemonic_from_name(name_hint)
    if not mnemonic:
        raise ImportProblem("the page names no mnemonic (expected a `pto.xxx` or `TXXX` title)")
    if not facts.mnemonic:
        unplaced.append(f"the page names no mnemonic in its title; {mnemonic} taken from its file name")
    mnemonic = _syntax_mnemonic(facts, mnemonic)
    try:
        iset = _instruction_set(facts, targets, mnemonic, name_hint)
        # an op whose name another set's op has too is keyed with its set's namespace (pto.comm.tgather)
        qualified = f"pto.{iset.namespace}.{mnemonic.rsplit('.', 1)[1]}"
        return (qualified if iset.namespace and qualified in iset.order else mnemonic), iset
    except ImportProblem as exc:  # the title (or the "is part of" line) names the op and its set
        exc.line = exc.line or facts.where.get("title") or facts.where.get("instruction_set")
        raise


def _mnemonic_from_name(name: str) -> str:
    """`tprefetch-async.md` or `TPREFETCH_ASYNC.md` -> `pto.tprefetch_async` ('' if not a name)."""
    stem = re.sub(r"[-\s]", "_", Path(name).stem.lower()) if name else ""
    return f"pto.{stem}" if re.fullmatch(r"[a-z][a-z0-9_]*", stem) else ""


def _syntax_mnemonic(facts: PageFacts, mnemonic: str) -> str:
    """The mnemonic the page's syntax lines spell, where the title names the intrinsic instead
    (the reference page TSUBVIEW.md of `pto.subview`); else `mnemonic`."""
    lines = [line for forms in facts.syntax.values() for line in forms]
    # a dotted spelling names the mnemonic with underscores (`pto.tstore.fp` of `pto.tstore_fp`)
    found = (
        m.group(0)
        for line in lines
        for m in re.finditer(r"(?<![!#\w.])pto\.[a-z][a-z0-9_]*(?:\.[a-z]\w*)*", line)
    )
    spelled = {"pto." + s[4:].replace(".", "_") for s in found}
    if mnemonic in spelled or len(spelled) != 1:
        return mnemonic
    return spelled.pop()


def _facts_text(facts: PageFacts) -> str:
    return " ".join(facts.related.values()) + " " + (facts.instruction_set or "")


def _instruction_set(facts: PageFacts, targets: Targets, mnemonic: str, path: str = "") -> InstructionSetDef:
    def key(title: str) -> str:
        return re.sub(r"[^a-z]", "", title.lower().replace("instructions", ""))

    where = Path(path).parent if path else None
    for s in targets.instruction_sets:  # an op page filed under a set's directory belongs to it
        if where is not None and where.as_posix().endswith(s.doc_dir):
            return s
    for s in targets.instruction_sets:  # a reference page filed under a set's namespace (comm/TGATHER.md)
        qualified = f"pto.{s.namespace}.{mnemonic.rsplit('.', 1)[1]}"
        if where is not None and s.namespace and where.name == s.namespace and qualified in s.order:
            return s
    for s in targets.instruction_sets:  # a reference page beside the op page's tree, or linking it
        sibling = where / s.doc_dir / f"{mnemonic.split('.', 1)[1].replace('_', '-')}.md" if where else None
        if (sibling is not None and sibling.is_file()) or f"{s.doc_dir}/" in _facts_text(facts):
            return s

    if facts.instruction_set:
        for s in targets.instruction_sets:
            if key(s.title) == key(facts.instruction_set):
                return s
    for s in targets.instruction_sets:
        if mnemonic in s.order:
            return s
    proposal = _propose_set(facts, mnemonic, path)
    if proposal:
        raise ImportProblem(
            f"{mnemonic} belongs to no instruction set of specs/targets.yaml; the page is of the set "
            f"{proposal['title']!r}: add it under `instruction_sets:` there, e.g. {_flow(proposal)}, "
            "then import the page again"
        )
    known = ", ".join(s.id for s in targets.instruction_sets)
    raise ImportProblem(
        f"{mnemonic} belongs to no instruction set of specs/targets.yaml: add it to the `order:` of one "
        f"({known}) or add a new set there"
    )


_SET_DIR = re.compile(r"(?:^|/)(?P<kind>tile|vector)/ops/(?P<dir>[a-z0-9_-]+)$")


def _propose_set(facts: PageFacts, mnemonic: str, path: str) -> dict[str, Any] | None:
    """The instruction-set entry a page of an unknown set asks for: named by the page ("is part
    of the X instruction set") or by the directory it is filed in (`vector/ops/<set>/`)."""
    m = _SET_DIR.search(Path(path).parent.as_posix()) if path else None
    if m is None and path:  # a reference page: its op page's directory, in the same tree
        stem = mnemonic.split(".", 1)[1].replace("_", "-")
        sibling = next(iter(sorted(Path(path).parent.glob(f"*/ops/*/{stem}.md"))), None)
        m = _SET_DIR.search(sibling.parent.as_posix()) if sibling else None
    title = facts.instruction_set or (m.group("dir").replace("-", " ").title() if m else "")
    if not title:
        return None
    ident = re.sub(r"[^a-z0-9]+", "_", title.lower().replace("instructions", "")).strip("_")
    kind = m.group("kind") if m else ("vector" if mnemonic.startswith("pto.v") else "tile")
    folder = m.group("dir") if m else ident.replace("_", "-")
    return {
        "id": ident,
        "title": title,
        "kind": kind,
        "doc_dir": f"{kind}/ops/{folder}",
        "index_page": f"{kind}/{folder}.md",
        "summary": "...",
        "order": f"[{mnemonic}]",
    }


def _flow(entry: dict[str, Any]) -> str:
    return "`- {" + ", ".join(f"{k}: {v}" for k, v in entry.items()) + "}`"
