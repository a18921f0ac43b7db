"""What one ISA page states (`PageFacts`), and the section vocabulary of the two page layouts."""

from __future__ import annotations

from dataclasses import dataclass, field

# Section names of the instruction-set op page layout, in page order.
OP_SECTIONS: tuple[str, ...] = (
    "Summary",
    "Mechanism",
    "Syntax",
    "C++ Intrinsic",
    "Inputs",
    "Expected Outputs",
    "Side Effects",
    "Constraints",
    "Exceptions",
    "Target-Profile Restrictions",
    "Examples",
    "Related Ops / Instruction Set Links",
)

# Section names of the per-instruction reference layout, in page order.
REF_SECTIONS: tuple[str, ...] = (
    "Introduction",
    "Math Interpretation",
    "Assembly Syntax",
    "C++ Intrinsic",
    "Constraints",
    "Examples",
    "ASM Form Examples",
)

# Bare lines of a flattened capture count as headings only when they are one of these, so that body
# text is not mistaken for structure.
KNOWN_HEADINGS: frozenset[str] = frozenset(
    {
        *OP_SECTIONS,
        *REF_SECTIONS,
        "Tile Operation Diagram",
        "PTO Assembly Form",
        "AS Level 1 (SSA)",
        "AS Level 2 (DPS)",
        "Auto Mode",
        "Manual Mode",
        "Temporary Space",
    }
)

# Older pages say "IR Level"; the generated pages and newer docs say "AS Level".
HEADING_ALIASES: dict[str, str] = {
    "C++ Intrinsics": "C++ Intrinsic",
    "IR Level 1 (SSA)": "AS Level 1 (SSA)",
    "IR Level 2 (DPS)": "AS Level 2 (DPS)",
}

SYNTAX_FORMS: tuple[str, ...] = ("pto_asm", "ssa", "dps")


@dataclass
class PageFacts:
    """What one page states, in a form that compares across page renderings."""

    layout: str = "unknown"  # "op", "ref", or "unknown" when the headings fit neither layout
    title: str = ""
    mnemonic: str = ""
    instruction_set: str | None = None
    headings: list[str] = field(default_factory=list)
    signature: str | None = None  # first C++ declaration, normalised (see normalise_signature)
    signatures: list[str] = field(default_factory=list)
    signature_comments: list[str] = field(default_factory=list)  # `// ...` line above each one
    header: str | None = None  # the "Declared in ..." path
    # A builtin's call as its C++ section shows it: variables (type, name, value), then the call
    # (function, its argument list), as the scalar pages write `pipe_t pipe = PIPE_S; get_buf(pipe, ...);`.
    call_variables: list[tuple[str, str, str]] = field(default_factory=list)
    calls: list[tuple[str, str]] = field(default_factory=list)
    summary: str = ""
    mechanism: list[str] = field(default_factory=list)
    math: str | None = None
    math_at: int | None = None  # how many mechanism lines come before the formula
    more_math: list[tuple[str, str]] = field(default_factory=list)  # (line before, formula) of later ones
    dtypes: dict[str, list[str]] = field(default_factory=dict)
    dtype_notes: dict[str, str] = field(default_factory=dict)  # "(remark)" after a list, by key
    # Lists of some operands ("The element type of `dst` must be one of: ..."): (key as in
    # `dtypes`, operands, names, remark).
    operand_dtypes: list[tuple[str, list[str], list[str], str | None, list[int] | None]] = field(
        default_factory=list
    )  # (key, operands, types, note, the declarations a limited rule checks)
    syntax: dict[str, list[str]] = field(default_factory=lambda: {form: [] for form in SYNTAX_FORMS})
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    side_effects: str = ""
    constraints: list[str] = field(default_factory=list)
    constraint_groups: list[str | None] = field(default_factory=list)  # label each item sits under
    exceptions: list[str] = field(default_factory=list)
    profile_restrictions: list[str] = field(default_factory=list)
    restriction_groups: list[str | None] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # bodies of other callouts, e.g. "Source notes"
    examples: list[str] = field(default_factory=list)
    diagram: str | None = None
    related: dict[str, str] = field(default_factory=dict)  # "previous" / "next" / "overview"
    conflicts: list[str] = field(default_factory=list)  # one fact stated twice, differently
    # Line (1-based) where a fact is stated: "title", "instruction_set", "math", "syntax.<form>",
    # "intrinsic" (first declaration), "row:<operand>" (operand table rows).
    where: dict[str, int] = field(default_factory=dict)
    unplaced: list[str] = field(default_factory=list)
