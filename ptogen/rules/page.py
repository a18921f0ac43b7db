"""What `ptogen import` hands the rule kinds of a page: its lines, its type lists, and the page as
a whole (`PageContext`), read by each kind's `Recognised` part (parts.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PageLine:
    group: str | None  # profile of an "Implementation checks (P)" block, None for common
    text: str  # the line without Markdown emphasis, code ticks and bullets

    @property
    def low(self) -> str:
        return self.text.lower()


@dataclass(frozen=True)
class TypeList:
    """A list of element types a page gives (read by pagefacts, in either page layout)."""

    key: str  # where the page gives it: a profile, `profile/condition`, a `Param::Value` condition, `forms`
    values: list[str]  # the types as the page spells them
    names: list[str | None]  # each one's name in the dtype vocabulary (None: unknown)
    named: list[str] | None  # the operands it is given for (None: the data tiles)
    note: str | None = None  # the parenthetical after it
    forms: list[int] | None = None  # the declarations it is checked on (None: all)


class PageContext:
    """What `ptogen import` knows of a page when rules look for themselves on it."""

    def __init__(
        self,
        lines: list[PageLine],
        profiles: set[str],
        data: list[str],
        distinct_types: bool,
        type_lists: list[TypeList] | tuple[TypeList, ...] = (),
        unplaced: list[str] | None = None,
        form_tiles: dict[int, list[str]] | None = None,
    ):
        self.lines = lines
        self.profiles = profiles
        self.data = data  # the data tile operands (what `TileData` stands for)
        self.distinct_types = distinct_types  # the operands have template types of their own
        self.type_lists = list(type_lists)
        self.unplaced = unplaced if unplaced is not None else []  # facts of the page no rule can place
        self.form_tiles = form_tiles or {}  # the data tiles each further declaration passes
        self._bare: list[tuple[PageLine, list[int] | None, bool]] | None = None

    def bare_lines(self) -> list[tuple[PageLine, list[int] | None, bool]]:
        """Each line without its forms and warning notes, with the forms it names and whether it
        warns: split once per page, not once per rule kind that reads it."""
        if self._bare is None:
            self._bare = []
            for line in self.lines:
                text, forms = split_forms(line.text)
                text, warns = split_warns(text)
                self._bare.append((PageLine(line.group, text), forms, warns))
        return self._bare

    def for_forms(self, forms: list[int]) -> PageContext:
        """The page as a line limited to `forms` sees it: their tiles are its data tiles."""
        tiles = list(dict.fromkeys(n for k in forms for n in self.form_tiles.get(k, self.data)))
        if not self.form_tiles or not tiles:
            return self
        return PageContext(
            self.lines,
            self.profiles,
            tiles,
            self.distinct_types,
            self.type_lists,
            self.unplaced,
            self.form_tiles,
        )

    def scope(self, line: PageLine) -> dict[str, Any]:
        return {"profiles": [line.group]} if line.group in self.profiles else {}

    def named(self, text: str) -> list[str]:
        """Operands of the page named in `text`, in order of mention."""
        return [n for n in re.findall(r"\b(\w+)\b", text) if n in self.data]


def forms_note(forms: list[int] | None) -> str:
    """What a doc line adds when `forms` limits its rule, numbering declarations from 1 as the page's
    C++ Intrinsic section numbers them (read back by `split_forms`)."""
    if forms is None:
        return ""
    listed = [str(k + 1) for k in forms]
    names = listed[0] if len(listed) == 1 else ", ".join(listed[:-1]) + " and " + listed[-1]
    return f"Checked on declaration{'s' if len(forms) > 1 else ''} {names} only."


_FORMS_NOTE = re.compile(r"\s*Checked on declarations? (?P<forms>\d+(?:(?:, | and )\d+)*) only\.$")


def split_forms(text: str) -> tuple[str, list[int] | None]:
    """A doc line without its forms note (`forms_note`), and the declarations that note names (None:
    all)."""
    m = _FORMS_NOTE.search(text)
    if m is None:
        return text, None
    return text[: m.start()], [int(k) - 1 for k in re.findall(r"\d+", m.group("forms"))]


# What the doc line of a rule that warns (`warns`) adds, read back by `split_warns`.
WARNS_NOTE = "Undefined when broken: the simulator warns once per call site and goes on."


def split_warns(text: str) -> tuple[str, bool]:
    """A doc line without the note of a rule that warns, and whether it had one."""
    bare = text.rstrip()
    if bare.endswith(WARNS_NOTE):
        return bare[: -len(WARNS_NOTE)].rstrip(), True
    return text, False
