"""The list sections of a page (constraints, exceptions, target-profile restrictions): their items
with the group label each sits under, and the dtype lists the items state."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..rules.page import split_forms
from .facts import PageFacts
from .pagelines import Ctx, Line, Section, plain_text

# --- constraints, exceptions, target-profile restrictions ----------------------------------------

BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)])(?=\s|$)\s*")
# In captures a bullet marker may survive glued after the previous sentence: "row/col. - Slope".
_EMBEDDED_BULLET = re.compile(r"(?<=[.:;])\s*-\s+(?=\S)")
_GROUP = re.compile(
    r"^(?P<label>Implementation checks \((?P<profile>[^)]+)\)|Common constraints|Valid region)"
    r"\s*:\s*(?P<rest>.*)$",
    re.IGNORECASE,
)
_BARE_LABEL = re.compile(r"^(?P<label>[^:.]{1,60}):$")


@dataclass
class _Item:
    group: str | None
    text: str  # plain text, for matching
    markdown: str = ""  # the same item with its inline Markdown (only in a Markdown page)


def _raw_items(lines: list[Line]) -> list[tuple[int, str]]:
    """Bullets start an item, following lines continue it, a blank line ends it. Each item comes
    with the indentation of its first line."""
    items: list[tuple[int, list[str]]] = []
    open_item = False
    for ln in lines:
        if ln.fenced:
            continue
        if not ln.text.strip():
            open_item = False
            continue
        ln.placed = True
        bullet = BULLET.match(ln.text)
        text = ln.text[bullet.end() :] if bullet else ln.text
        if bullet or not open_item:
            items.append((len(ln.text) - len(ln.text.lstrip()), []))
            open_item = True
        items[-1][1].append(text.strip())
    return [(indent, " ".join(parts)) for indent, parts in items]


def _items(lines: list[Line], flattened: bool) -> list[_Item]:
    out: list[_Item] = []
    group: str | None = None
    label_indent, nested = 0, False  # indentation of the group label; items seen below it
    for indent, raw in _raw_items(lines):
        text = plain_text(raw)
        pieces = _EMBEDDED_BULLET.split(text) if flattened else [text]
        if not flattened and group is not None:
            if indent > label_indent:
                nested = True
            elif nested:  # back at the label's level: the group's nested list has ended
                group, nested = None, False
        for piece in pieces:
            piece = piece.strip()
            markdown = "" if flattened else " ".join(raw.split())
            m = _GROUP.match(piece) or _BARE_LABEL.match(piece)
            if m:
                group = m.group("label")
                label_indent, nested = indent, False
                piece = m.groupdict().get("rest") or ""
                # the Markdown form keeps what follows the label's colon (and its closing `**`)
                markdown = markdown.partition(":")[2].removeprefix("**").strip()
            if piece and not (flattened and _is_stub(piece, group, out)):
                out.append(_Item(group, piece, markdown or piece))
    return out


def _is_stub(piece: str, group: str | None, seen: list[_Item]) -> bool:
    """Captures repeat the first words of a nested list item ("- The op uses") after the item."""
    return any(prev.group == group and prev.text.startswith(piece) for prev in seen)


def _streams(section: Section) -> tuple[list[Line], list[Line]]:
    """Lines of the section proper, and lines of other callouts inside it (e.g. "Source notes")."""
    main = [ln for ln in section.lines if ln.callout in (None, section.heading)]
    other = [ln for ln in section.lines if ln.callout not in (None, section.heading)]
    return main, other


def list_section(
    target: Callable[[PageFacts], list[str]],
    with_dtypes: bool,
    groups: Callable[[PageFacts], list[str | None]] | None = None,
) -> Callable[[Section, Ctx], None]:
    def read(section: Section, ctx: Ctx) -> None:
        main, other = _streams(section)
        for item in _items(main, ctx.flattened):
            target(ctx.facts).append(item.markdown if ctx.keep_markdown else item.text)
            if groups is not None:
                groups(ctx.facts).append(item.group)
            if with_dtypes:
                _record_dtypes(ctx, item)
        keep = ctx.keep_markdown
        ctx.facts.notes.extend(i.markdown if keep else i.text for i in _items(other, ctx.flattened))

    return read


# --- dtype lists ---------------------------------------------------------------------------------

_WITH_CONDITION = re.compile(r"^With\s+\w+\s*==\s*(?P<cond>[\w:]+)\s*,\s*(?P<rest>.*)$")
_ONE_OF = re.compile(r"^(?P<subject>.*?)\s*must be one of\s*:\s*(?P<list>.*)$")
_ACCEPTS = re.compile(r"^(?P<cond>\w+::\w+)\s+accepts\s+(?P<list>.*)$")
_FORMS = re.compile(r"^Documented\s+[\w-]+\s+forms\s*:\s*(?P<list>.*)$")
_TYPE_NAME = re.compile(r"^[A-Za-z_][\w:]*$")


def _type_list(text: str) -> list[str]:
    """``half,float16_t, float and uint8_t (remark).`` -> names; stops at the first non-name."""
    text = text.split("(")[0].strip().rstrip(".").strip()
    names = []
    for part in re.split(r",|\s+and\s+|\s+or\s+", text):
        name = re.sub(r"^(?:and|or)\s+", "", part.strip())
        if not name:  # ", and" leaves an empty piece
            continue
        if not _TYPE_NAME.match(name):
            break
        names.append(name)
    return names


def profile_of(group: str | None) -> str:
    """The profile an "Implementation checks (P)" label names; "common" for any other label."""
    return _profile_of(group)


def _profile_of(group: str | None) -> str:
    m = _GROUP.match(f"{group}:") if group else None
    return m.group("profile") if m and m.group("profile") else "common"


def _record_dtypes(ctx: Ctx, item: _Item) -> None:
    text, forms = split_forms(item.text)
    profile = _profile_of(item.group)
    cond_match = _WITH_CONDITION.match(text)
    cond = cond_match.group("cond") if cond_match else None
    body = cond_match.group("rest") if cond_match else text
    note: str | None = None
    if m := _ACCEPTS.match(body):
        cond, names = m.group("cond"), _type_list(m.group("list"))
        note = _list_note(m.group("list"))
    elif m := _FORMS.match(body):
        _put_dtypes(ctx, "forms", _type_list(m.group("list")))
        return
    elif m := _ONE_OF.match(body):
        names = _type_list(m.group("list"))
        note = _list_note(m.group("list"))
        if of := _ELEMENT_TYPE_OF.match(m.group("subject")):
            operands = re.split(r",\s*|\s+and\s+", of.group("names"))
            key = profile if cond is None else (cond if profile == "common" else f"{profile}/{cond}")
            if names:
                ctx.facts.operand_dtypes.append((key, operands, names, note, forms))
            return
        if "element type" in m.group("subject").casefold():  # vector pages: element type T
            # Under a profile's checks the list is that profile's (the CPU profile may admit more).
            _put_dtypes(ctx, "forms" if profile == "common" else profile, names, note=note)
            return
    else:
        return
    if cond is None:
        _put_dtypes(ctx, profile, names, note=note)
    elif profile == "common":
        _put_dtypes(ctx, cond, names, note=note)
    else:
        # A condition inside a profile group: keep it per profile, and let the first one stand for
        # the bare condition unless the page also states it unscoped.
        _put_dtypes(ctx, f"{profile}/{cond}", names, note=note)
        _put_dtypes(ctx, cond, names, weak=True, note=note)


_ELEMENT_TYPE_OF = re.compile(r"^The element type of (?P<names>\w+(?:(?:,\s*|,?\s+and\s+)\w+)*)$")
_LIST_NOTE = re.compile(r"\((?P<note>[^()]*)\)\.?\s*$")


def _list_note(text: str) -> str | None:
    """The remark after a type list: ``half, float (union of the A2A3 and A5 lists).``"""
    m = _LIST_NOTE.search(text.strip())
    return m.group("note").strip() if m and m.group("note").strip() else None


def _put_dtypes(ctx: Ctx, key: str, names: list[str], weak: bool = False, note: str | None = None) -> None:
    if not names:
        return
    dtypes = ctx.facts.dtypes
    old = dtypes.get(key)
    if old is None or (key in ctx.weak_keys and not weak):
        dtypes[key] = names
        ctx.facts.dtype_notes.pop(key, None)
        if note:
            ctx.facts.dtype_notes[key] = note
        if weak:
            ctx.weak_keys.add(key)
        else:
            ctx.weak_keys.discard(key)
    elif old != names and not weak and key not in ctx.weak_keys:
        ctx.facts.conflicts.append(f"dtypes[{key}]: {old} vs {names}")
