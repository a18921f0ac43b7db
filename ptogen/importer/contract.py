"""What `ptogen import` asks of an op kind (`PageReader`): whether a page shows one of its ops, and
how to read such a page back into a spec. Each kind reads what its own templates write
(`templates/opkinds/<name>/domain.md.j2`); tests/test_contracts.py checks that every spec's kind
recognises the spec's own pages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar


@dataclass(frozen=True)
class PageOp:
    """What `ptogen import` knows of a page when op kinds look for themselves in it."""

    vector: bool  # the page's instruction set is a vector one
    math: str  # the page's formula (LaTeX), "" when it has none
    reduces_over: str | None  # the index a reduction at the top of the formula's right side runs over
    intro: str  # the paragraph introducing the formula (a generated page: the kind's iteration domain)
    operand_kinds: tuple[str, ...]  # the kind of each operand (tile, scalar, global, events, ...)
    level: str = "tile"  # the level of the page's instruction set: tile, vector or scalar
    operand_types: tuple[str, ...] = ()  # the assembly type of each operand (`!pto.pipe<...>`)

    @property
    def lhs(self) -> str:
        return self.math.partition("=")[0]

    def count(self, kind: str) -> int:
        """How many operands of this kind the page has."""
        return self.operand_kinds.count(kind)

    def has(self, kind: str) -> bool:
        return kind in self.operand_kinds

    def intro_says(self, phrase: str) -> bool:
        """Whether the formula's introduction walks elements (`For each ...`) and says `phrase`."""
        return self.intro.startswith("For each") and phrase in self.intro


# How specific a page's evidence for an op kind is (`PageReader.recognise`); the import takes the
# kind with the most specific evidence.
FALLBACK = 0  # what any tile (or vector) page is unless a kind recognises more
FORMULA = 1  # the formula's shape: a reduction, a packed result
DOMAIN = 2  # the wording of the kind's own iteration-domain paragraph (its domain.md.j2)
OPERANDS = 3  # the operands alone: a GlobalTensor, events without a tile


class PageReader:
    """An op kind as `ptogen import` reads its pages."""

    # Its spec writes the semantics as index notation (`dst[i,j] = ...`), which the import reads back
    # from the page's formula as such.
    index_notation: ClassVar[bool] = False
    # Its ops compute elements, so a page without a formula lacks one (scalar builtins compute none).
    computes: ClassVar[bool] = True
    # How the kind's iteration-domain paragraph (the `math_intro` of its domain.md.j2) begins, without
    # Markdown: the import leaves such paragraphs out of the mechanism it reads.
    domain_starts: ClassVar[tuple[str, ...]] = ()

    def recognise(self, page: PageOp) -> int | None:
        """Whether a page shows an op of this kind: None if not, else how specific the evidence is
        (FALLBACK, FORMULA, DOMAIN, OPERANDS). The import asks every kind and takes the one with the
        most specific evidence (on a tie, the first in `opkinds.registry()`)."""
        return None

    def import_semantics(self, page: PageOp) -> dict[str, Any]:
        """Fields of an imported spec's `semantics` that the page's evidence states for this kind
        beyond its expression (a reduction: the span one result folds); none by default."""
        return {}

    def import_domain(self, operands: list[dict[str, Any]]) -> str | None:
        """The operand an imported op of this kind iterates (its `semantics.domain`), or None: the
        page names none. By default its first destination."""
        return next((o["name"] for o in operands if o["role"] == "dst"), None)

    def import_formulas(self, math: str) -> list[tuple[str | None, str]]:
        """The plain formulas a page's formula (LaTeX) holds, each with the result it gives: the
        main result's first (its name may be None), then further results' (`extra_outputs`). By
        default the whole formula is the main result's."""
        return [(None, math)]

    def complete_import(self, semantics: dict[str, Any], operands: list[dict[str, Any]]) -> None:
        """Adjust an imported spec's `semantics` and `operands` to what a page of this kind implies
        (default: nothing to adjust)."""
