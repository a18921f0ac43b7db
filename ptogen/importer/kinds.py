"""The importer's one view of the op kinds (ptogen/opkinds/): every question the import asks a
kind goes through here, so that how the kinds are consulted changes in this module only."""

from __future__ import annotations

from typing import Any

from ..opkinds import KINDS, PageOp
from ..opkinds import recognise as recognise_kind

# How the op kinds' domain paragraphs begin (each kind's `domain_starts`).
DOMAIN_STARTS = tuple(dict.fromkeys(s for k in KINDS.values() for s in k.domain_starts))


def recognise(
    vector: bool,
    math: str,
    reduces_over: str | None,
    intro: str,
    operand_kinds: tuple[str, ...],
    level: str = "tile",
    operand_types: tuple[str, ...] = (),
) -> str | None:
    """The kind that recognises a page with the most specific evidence (None: none does)."""
    return recognise_kind(PageOp(vector, math, reduces_over, intro, operand_kinds, level, operand_types))


def computes(kind: str) -> bool:
    """Whether the kind's ops compute elements, so that a page without a formula lacks one."""
    return KINDS[kind].computes


def domain(kind: str, operands: list[dict[str, Any]]) -> str | None:
    """The operand the op iterates (`import_domain`)."""
    return KINDS[kind].import_domain(operands)


def formulas(kind: str, math: str) -> list[tuple[str | None, str]]:
    """The page formula's plain formulas, the main result's first (`import_formulas`)."""
    return KINDS[kind].import_formulas(math)


def index_notation(kind: str) -> bool:
    """Whether the kind's formulas are written in index notation (`x_{i,k}`)."""
    return KINDS[kind].index_notation


def complete(kind: str, semantics: dict[str, Any], operands: list[dict[str, Any]]) -> None:
    """The kind's own additions to an imported `semantics` section (`complete_import`)."""
    KINDS[kind].complete_import(semantics, operands)


def reads_groups(kind: str) -> bool:
    """Whether the kind's expressions may name a group operand (`KindFacts.reads_groups`)."""
    return KINDS[kind].facts.reads_groups


def functions(kind: str) -> dict[str, int]:
    """The functions of the kind's own its expressions may apply (name -> number of arguments)."""
    return dict(KINDS[kind].facts.functions)
