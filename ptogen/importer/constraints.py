"""A page's constraints: the rules every rule kind finds on it (`from_page`), the lines left as
prose, and the profile notes."""

from __future__ import annotations

import re
from typing import Any

from ..rules import PAGE_KINDS, RULE_KINDS, PageContext, PageLine, TypeList, kind_name, page_prefixes
from ..rules.page import split_forms
from ..spec.model import Targets
from .naming import plain, snake
from .pagefacts import PageFacts, profile_of
from .sections import is_generated


def _groups(text: str) -> list[tuple[str | None, str]]:
    """Constraint-ish lines of a page with the profile group they sit in (None: common)."""
    out: list[tuple[str | None, str]] = []
    group: str | None = None
    in_note = False  # a "Source notes" callout states disagreements, never a rule
    for raw in text.splitlines():
        if in_note and (raw.startswith("    ") or not raw.strip()):
            continue
        in_note = raw.startswith('!!! note "Source notes"')
        if in_note:
            group = None
            continue
        line = raw.replace("`", "").replace("*", "").strip(" -\t¶")
        m = re.search(r"Implementation checks \((\w+)\)", line)
        if m:
            group = m.group(1)
            continue
        if re.match(r"(#+ |Common constraints|Valid region|Examples|Exceptions)", line):
            group = None
        if line:
            out.append((group, line))
    return out


_APPLIES_TO = re.compile(r"\s*Applies to (?P<names>\w+(?:(?:,\s*|\s+and\s+)\w+)*) only\.$")


_NAMED_LINE = re.compile(
    r"^(?:Runtime:\s*)?(?P<names>\w+(?:\.\w+\(\))?(?:(?:,\s*|,?\s+and\s+|\s*(?:==|>=|>)\s*)\w+(?:\.\w+\(\))?)*)"
    r"\s*(?:must|(?:\(.*\))?\.?$)"
)


def _mentioned(line: str, typed: dict[str, str | None]) -> list[str]:
    """The operands a constraint line opens with (`a`, `b` and `c` must ...; Runtime: `a.X() == b.X()`)."""
    m = _NAMED_LINE.match(line)
    if m is None:
        return []
    names = [n for n in re.findall(r"\b(\w+)\b(?!\()", m.group("names")) if n in typed]
    return list(dict.fromkeys(names))


def _dtype_name(spelling: str, targets: Targets) -> str | None:
    spelling = spelling.strip()
    if targets.has_dtype(spelling):
        return spelling
    for d in targets.dtypes:
        if d.asm == spelling:
            return d.name
    return None


def _prose_constraints(prose: list[tuple[str, str | None]]) -> list[dict[str, Any]]:
    """Prose lines, one entry per text: a text listed under several profile groups once, with them."""
    out: list[dict[str, Any]] = []
    for text, profile in prose:
        same = next((p for p in out if p["text"] == text), None)
        if same is None:
            out.append({"text": text, **({"profiles": [profile]} if profile else {})})
        elif profile and "profiles" in same and profile not in same["profiles"]:
            same["profiles"].append(profile)
    return out


_PROFILE_NOTE = re.compile(r"^\*\*(?P<profile>\w+)\*\*\s*:\s*(?P<text>.+)$")


def profile_notes(facts: PageFacts, targets: Targets) -> list[dict[str, Any]]:
    """`**A5**: text` items under Target-Profile Restrictions (the checks are rules, not notes)."""
    profiles = set(targets.profile_names())
    out: list[dict[str, Any]] = []
    groups = facts.restriction_groups + [None] * len(facts.profile_restrictions)
    for item, group in zip(facts.profile_restrictions, groups, strict=False):
        m = _PROFILE_NOTE.match(item)
        if m and m.group("profile") in profiles:
            out.append({"profile": m.group("profile"), "text": m.group("text").strip()})
        elif group is None and not item.startswith(("!!!", "???")):
            out.append({"text": item})  # a note of every profile, outside the check groups
    return out


def read_constraints(
    facts: PageFacts,
    text: str,
    targets: Targets,
    operands: list[dict[str, Any]],
    intrinsic: dict[str, Any] | None,
    unplaced: list[str],
) -> dict[str, Any]:
    """The spec's `constraints`, and its `prose_constraints` and `profile_notes` when the page has any."""
    params = intrinsic["params"] if intrinsic else []
    overloads = (intrinsic or {}).get("overloads", [])
    data = [o["name"] for o in operands if o["kind"] in ("tile", "vreg") and o["role"] not in ("tmp", "mask")]
    distinct_types = len({p.get("type") for p in params if p.get("operand") in data}) > 1
    typed = _typed(operands, params, overloads)
    form_tiles = _form_tiles(operands, overloads, data, targets)
    contexts = _contexts(facts, text, targets, data, distinct_types, unplaced, typed, form_tiles)
    out: dict[str, Any] = {"constraints": _found_rules(contexts)}
    prose = _prose(facts, text, targets)
    if prose:
        out["prose_constraints"] = _prose_constraints(prose)
    notes = profile_notes(facts, targets)
    if notes:
        out["profile_notes"] = notes
    return out


def _typed(
    operands: list[dict[str, Any]], params: list[dict[str, Any]], overloads: list[dict[str, Any]]
) -> dict[str, str | None]:
    """Every value operand with the C++ type it is declared with, so that a line naming operands
    is read as a rule of those operands."""
    declared = {p.get("operand"): p.get("type") or p.get("value_type") or p.get("dtype_of") for p in params}
    typed = {
        o["name"]: declared.get(o["name"])
        for o in operands
        if o["kind"] in ("tile", "scalar", "vreg", "mask", "global")
    }
    # Operands only further declarations take (TCONCAT's index tiles), which rules limited to those
    # declarations name, under the type their declaration gives them.
    for overload in overloads:
        own = {p.get("operand"): p.get("type") or p.get("value_type") for p in overload.get("params", [])}
        for o in overload.get("operands", []):
            if o["kind"] in ("tile", "scalar") and o["name"] not in typed:
                typed[o["name"]] = own.get(o["name"])
    return typed


def _form_tiles(
    operands: list[dict[str, Any]], overloads: list[dict[str, Any]], data: list[str], targets: Targets
) -> dict[int, list[str]]:
    """The data tiles of each further declaration (the main data tiles it passes and its own tiles),
    so that a line of the data tiles limited to some declarations is a rule of the tiles those take."""
    main_names = {o["name"] for o in operands}
    structs = {st.name for st in targets.structs}
    return {
        k: [
            str(p.get("operand"))
            for p in ov.get("params", [])
            if "type" in p
            and not p.get("events")
            and (p.get("operand") in data or p.get("operand") not in main_names)
            and p.get("type") not in structs
        ]
        for k, ov in enumerate(overloads, start=1)
    }


def _type_lists(facts: PageFacts, targets: Targets) -> list[TypeList]:
    """The page's dtype lists (of the data tiles, or of the operands they name)."""
    lists: list[tuple[str, list[str], list[str] | None, str | None, list[int] | None]] = [
        (key, values, None, facts.dtype_notes.get(key), None) for key, values in facts.dtypes.items()
    ]
    lists += [(key, values, ops, note, forms) for key, ops, values, note, forms in facts.operand_dtypes]
    return [
        TypeList(
            key,
            values,
            [_dtype_name(v, targets) for v in values],
            None if named is None else [snake(n) for n in named],
            note,
            forms,
        )
        for key, values, named, note, forms in lists
    ]


def _contexts(
    facts: PageFacts,
    text: str,
    targets: Targets,
    data: list[str],
    distinct_types: bool,
    unplaced: list[str],
    typed: dict[str, str | None],
    form_tiles: dict[int, list[str]],
) -> list[PageContext]:
    """What the rule kinds look at: the page's lines of the data tiles, then each line that names
    the operands it is a rule of, with those operands."""
    profiles = set(targets.profile_names())
    lines, scoped = [], []
    for group, line in _groups(text):
        # "... Applies to `tmp` only. Checked on declaration 1 only.": the operands, then the forms.
        bare, forms = split_forms(line)
        limited = line[len(bare) :]
        m = _APPLIES_TO.search(bare)
        mentioned = _mentioned(line, typed)
        if m is None and mentioned:
            # A line that names its operands ("`src0` and `src1` must use the same element type",
            # "Runtime: `tmp`, `dst` and `src` must occupy different memory ranges") is a rule of those.
            distinct = len({typed[n] for n in mentioned}) > 1
            scoped.append(PageContext([PageLine(group, line)], profiles, mentioned, distinct, []))
            continue
        if m is None:
            lines.append(PageLine(group, line))
            continue
        # "... Applies to `dst` only.": a rule of some of the data tiles (the page says TileData).
        named = [n for n in re.split(r",\s*|\s+and\s+", m.group("names")) if n in typed or n in data]
        rest = bare[: m.start()] + limited  # the forms note stays for `from_page`
        scoped.append(PageContext([PageLine(group, rest)], profiles, named, distinct_types, []))
    type_lists = _type_lists(facts, targets)
    return [PageContext(lines, profiles, data, distinct_types, type_lists, unplaced, form_tiles), *scoped]


def _found_rules(contexts: list[PageContext]) -> list[dict[str, Any]]:
    """Every rule kind looks for itself on the page (ptogen/rules/, `from_page`): its rules, each once,
    in the order of the rule kinds."""
    seen: set[str] = set()
    rules: list[dict[str, Any]] = []
    for cls in PAGE_KINDS:
        for rule in [rule for page in contexts for rule in cls.from_page(page)]:
            key = repr(sorted(rule.items()))
            if key not in seen:
                seen.add(key)
                rules.append(rule)
    kinds = [kind_name(cls) for cls in RULE_KINDS]
    rules.sort(key=lambda r: (kinds.index(r["kind"]), r.get("profiles", [""]), str(r.get("when", ""))))
    return rules


def _prose(facts: PageFacts, text: str, targets: Targets) -> list[tuple[str, str | None]]:
    """The page's constraint and restriction lines no rule kind reads, with their profile (None: all)."""
    profiles = set(targets.profile_names())
    prose: list[tuple[str, str | None]] = []
    generated = is_generated(text)
    groups = facts.constraint_groups + [None] * len(facts.constraints)
    items = list(zip(facts.constraints, groups, strict=False))
    items += zip(facts.profile_restrictions, facts.restriction_groups, strict=False)
    for line, group in items:
        low = plain(line).lower()
        if low.startswith(("!!!", "the op uses", "the op iterates", "slope scalar", *page_prefixes())):
            continue
        if "must be one of" in low or "must use the same element type" in low or "accepts" in low:
            continue
        if _PROFILE_NOTE.match(line):
            continue  # a profile note (`**A5**: text`), read by profile_notes
        if generated and group and group.lower().startswith("valid region"):
            continue  # ptogen writes the op kind's iteration domain there, not a spec fact
        profile = profile_of(group)
        if profile != "common" and profile not in profiles:
            profile = "common"
        if profile == "common" and line in facts.profile_restrictions and group is None:
            continue  # restriction prose outside any profile group is not a constraint
        prose.append((line, None if profile == "common" else profile))
    return prose
