"""`scratch_bytes`: a scratch tile spans at least a number of bytes that depends on the element size
of another operand (TCI's A2A3 `tmp`: 768 bytes for 4-byte and 1792 bytes for 2-byte destinations).
The size counts the whole tile, `sizeof(DType) * Numel`, since a backend that casts the scratch to
another type sizes it by bytes. Checked by `static_assert` on the tiles' types."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import Field

from ..rule_api import ELEMENT_BYTES
from ..spec.fields import Name
from .base import Problem, RuleBase, or_list, with_note
from .page import PageContext, PageLine
from .parts import Broken, Recognised, StaticBreak, TileFilter

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import SpecFacts as OpSpec
    from ..rule_api import TargetFacts as Targets
    from ..rule_api import TileDecl

Bytes = Annotated[int, Field(ge=1, le=1 << 20)]

# "Scratch size: `tmp` spans at least 768 bytes with 4-byte `dst` elements or 1792 bytes with 2-byte ..."
_LINE = re.compile(r"^scratch size: (?P<tmp>\w+) spans at least (?P<rest>.*?)(?: \((?P<note>[^()]*)\))?\.?$")
_ENTRY = re.compile(r"(?P<bytes>\d+) bytes with (?P<size>\d+)-byte (?P<by>\w+) elements")


class ScratchBytesRule(RuleBase, Recognised, StaticBreak, TileFilter):
    """`operands[0]` (the scratch tile) spans at least `min_bytes[k]` bytes when the element type of
    `operands[1]` has `k` bytes; element sizes the table does not list ask nothing."""

    kind: Literal["scratch_bytes"] = "scratch_bytes"
    operands: list[Name] = Field(
        min_length=2, max_length=2, description="[scratch tile, the tile it is sized by]"
    )
    min_bytes: list[tuple[Bytes, Bytes]] = Field(
        min_length=1,
        description="[element bytes of the second operand, least bytes of the first] pairs, in the order "
        "the doc line states them",
    )
    page_prefixes: ClassVar[tuple[str, ...]] = ("scratch size:",)

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        yield from super().check(spec, targets)
        if self.operands[0] == self.operands[1]:
            yield ("operands",), "the scratch tile is sized by another operand"
        sizes = [size for size, _ in self.min_bytes]
        if len(set(sizes)) != len(sizes):
            yield ("min_bytes",), "each element size is listed once"

    def _entries(self) -> list[tuple[int, int]]:
        return [(size, least) for size, least in self.min_bytes]

    def _most(self) -> int:
        return max(least for _, least in self.min_bytes)

    def condition(self, op: OpView, rv: RuleView) -> str:
        tmp, by = rv.types
        need = "0"
        for size, least in reversed(self._entries()):
            need = f"(sizeof(typename {by}::DType) == {size} ? {least} : {need})"
        return f"sizeof(typename {tmp}::DType) * {tmp}::Numel >= {need}"

    def _spelled(self, code: bool) -> str:
        tmp, by = self.operands
        name = f"`{by}`" if code else by
        return or_list(
            [f"{least} bytes with {size}-byte {name} elements" for size, least in self._entries()], code=False
        )

    def text(self, op: OpView) -> str:
        return f"scratch size: {self.operands[0]} must span at least {self._spelled(code=False)}"

    def doc(self, op: OpView) -> str:
        return with_note(
            f"Scratch size: `{self.operands[0]}` spans at least {self._spelled(code=True)}", self.note
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = _LINE.match(line.text.lower())
        if m is None:
            return None
        entries = list(_ENTRY.finditer(m.group("rest")))
        bys = {e.group("by") for e in entries}
        if not entries or len(bys) != 1:
            return None
        out: dict[str, Any] = {
            "operands": [m.group("tmp"), bys.pop()],
            "min_bytes": [[int(e.group("size")), int(e.group("bytes"))] for e in entries],
        }
        note = re.search(r"\((?P<note>[^()]*)\)\.?$", line.text)
        if note:
            out["note"] = note.group("note").strip()
        return out

    def legalise(self, tiles: dict[str, TileDecl]) -> dict[str, TileDecl]:
        # As many elements as the largest minimum has bytes: enough whatever the scratch's element
        # type, so a case that breaks another rule by that type does not break this one as well.
        tmp, _ = self.operands
        if tmp not in tiles:
            return tiles
        cols = self._most()
        return {**tiles, tmp: replace(tiles[tmp], rows=1, cols=cols, valid_rows=1, valid_cols=cols)}

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        # One 32-byte row: below every listed minimum (each is more than 32 bytes).
        tmp, by = self.operands
        t = tiles[tmp]
        small = replace(t, rows=1, cols=1, valid_rows=1, valid_cols=1)  # rounded up to 32 bytes
        size = ELEMENT_BYTES.get(tiles[by].dtype) if by in tiles else None
        least = dict(self._entries()).get(size or 0, self._most())
        if small.cols * ELEMENT_BYTES.get(t.dtype, 4) >= least:
            raise ValueError(
                f"{tmp}: a 32-byte tile meets the least size {least}, so nothing breaks the rule"
            )
        return Broken({**tiles, tmp: small}, changed=tmp)
