"""A page's spec, assembled section by section from what each reader finds on the page. Output is
canonical (constraint order, expression spelling), so importing a page that ptogen generated gives
back the spec it came from."""

from __future__ import annotations

from typing import Any

from ..spec.model import Targets
from . import kinds, sections
from .builtins import read_builtin, read_spelling, scalar_operands, shows_builtin
from .constraints import read_constraints
from .forms import Form, read_intrinsic
from .instruction_set import identify
from .operands import (
    call_shaped,
    carried_by_template,
    page_rows,
    read_operands,
    tmp_in_events,
    vector_call_operands,
)
from .overloads import read_overloads
from .pagefacts import PageFacts
from .semantics import read_semantics


def page_to_spec(text: str, targets: Targets, name_hint: str = "") -> tuple[dict[str, Any], list[str]]:
    """The spec a page states, and the facts of the page it could not place. `name_hint` (the
    page's file name) names the op when the page itself does not."""
    spec, unplaced, _where = read_spec(text, targets, name_hint)
    return spec, unplaced


def read_spec(
    text: str, targets: Targets, name_hint: str = ""
) -> tuple[dict[str, Any], list[str], dict[str, int]]:
    """page_to_spec, with the line of each located fact (`PageFacts.where`)."""
    page = sections.read(text)
    facts, unplaced = page.facts, page.unplaced
    mnemonic, iset = identify(facts, targets, name_hint, unplaced)
    vector = iset.kind == "vector"
    summary = " ".join((facts.summary or mnemonic).split())
    spec: dict[str, Any] = {"mnemonic": mnemonic, "instruction_set": iset.id, "summary": summary}
    spec["mechanism"] = sections.mechanism(page, summary)
    builtin = spelling = None
    if iset.kind == "scalar" and kinds.spelled_page(sections.domain_paragraph(facts)):
        # an IR form: its C++ is code the page shows, no function
        intrinsic, forms = None, list[Form]()
        operands = scalar_operands(facts, unplaced, form=True)
        spelling = read_spelling(page.text, unplaced)
    elif iset.kind == "scalar" or shows_builtin(facts) or (vector and call_shaped(facts)):
        # a runtime builtin (a scalar page's, or a vector page's register-model call): its arguments
        # are the operands, a C++ call stands for an intrinsic
        intrinsic, forms = None, []
        operands = scalar_operands(facts, unplaced, register_call=vector and not shows_builtin(facts))
        if vector and not operands:  # no operand table: the SSA line names the call's arguments
            operands = vector_call_operands(facts)
        vector = False
        builtin = read_builtin(facts, operands, mnemonic, unplaced)
    else:
        intrinsic, forms = (None, []) if vector else read_intrinsic(facts, page.text, mnemonic, unplaced)
        operands = read_operands(facts, intrinsic["params"] if intrinsic else [], vector, targets, unplaced)
    if intrinsic is not None:
        _complete_intrinsic(facts, intrinsic, forms, operands, targets, unplaced)
    spec["semantics"] = read_semantics(facts, operands, intrinsic, vector, unplaced, iset.kind)
    spec["operands"] = operands
    if intrinsic:
        spec["intrinsic"] = intrinsic
    if builtin:
        spec["builtin"] = builtin
    if spelling:
        spec["spelling"] = spelling
    spec |= sections.syntax_sections(facts)
    spec |= read_constraints(facts, page.text, targets, operands, intrinsic, unplaced)
    spec |= sections.closing_sections(facts, vector)
    return spec, unplaced, facts.where


def _complete_intrinsic(
    facts: PageFacts,
    intrinsic: dict[str, Any],
    forms: list[Form],
    operands: list[dict[str, Any]],
    targets: Targets,
    unplaced: list[str],
) -> None:
    """What the main form carries beside its parameters (a template value, a scratch tile in the
    events pack), and the further forms as its overloads, once the operands are known."""
    rows = page_rows(facts)
    carried_by_template(facts, intrinsic, operands, rows)
    tmp_in_events(facts, operands, intrinsic)
    read_overloads(forms, intrinsic, operands, rows, targets, unplaced)
