"""The seed pages in tests/fixtures (captured from the real ISA docs) against the pages ptogen generates.

Every fact a seed states in machine-checkable form (section order, C++ signature, dtype lists, syntax
lines) must be stated the same way by the generated op page and, for tile ops, the generated reference
page. The parser (ptogen.pagefacts) is also tested on its own, on each form a page comes in.
"""

from __future__ import annotations

import difflib
import functools
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from ptogen.importer.pagefacts import SYNTAX_FORMS, PageFacts, normalise_signature, parse_file, parse_page

from ..helpers import ROOT

FIXTURES = ROOT / "tests" / "fixtures"
ISA = ROOT / "generated" / "docs" / "isa"

# Headings a generated page may have that its seed lacks: the seed capture of tpows stops before
# "Related Ops", generated op pages always put the PTO assembly form under its own subheading (some
# seeds say "Synchronous form:" instead), and the ASM-mode examples are always generated.
ALLOWED_EXTRA_HEADINGS = frozenset(
    {
        "Related Ops / Instruction Set Links",
        "Tile Operation Diagram",
        "PTO Assembly Form",
        "Auto Mode",
        "Manual Mode",
        "At a Glance",  # the facts most looked up, before the seed's first section
    }
)


def _allowed_extra(heading: str) -> bool:
    """A heading the generated page may add: the fixed set, or a family the op belongs to."""
    return heading in ALLOWED_EXTRA_HEADINGS or heading.endswith(" family")


@dataclass(frozen=True)
class Seed:
    fixture: str
    op: str  # stem of the generated op page, e.g. "tlrelu"
    ref: str | None  # name of the generated reference page (tile ops only)


SEEDS = [
    Seed("pto.tlrelu.txt", "tlrelu", "TLRELU"),
    Seed("pto.vlrelu.txt", "vlrelu", None),
    Seed("pto.tpows.txt", "tpows", "TPOWS"),
    Seed("TPRELU.md", "tprelu", "TPRELU"),
    Seed("TMAXS.txt", "tmaxs", "TMAXS"),
]


def op_page(op: str) -> Path:
    matches = sorted(ISA.glob(f"*/ops/*/{op}.md"))  # generated/docs/isa/<set dir>/<op>.md
    assert len(matches) == 1, f"expected one generated op page for {op}, found {matches}"
    return matches[0]


def generated_pages(seed: Seed) -> list[Path]:
    pages = [op_page(seed.op)]
    if seed.ref is not None:
        pages.append(ISA / f"{seed.ref}.md")
    return pages


@functools.cache
def facts_of(path: Path) -> PageFacts:
    return parse_file(path)


def seed_facts(seed: Seed) -> PageFacts:
    return facts_of(FIXTURES / seed.fixture)


PAIRS = [(seed, page) for seed in SEEDS for page in generated_pages(seed)]
PAIR_IDS = [f"{seed.fixture}-vs-{page.name}" for seed, page in PAIRS]


# --- comparisons (each returns what disagrees, so negative tests can check them too) --------------


def heading_problems(seed: PageFacts, gen: PageFacts) -> list[str]:
    """The seed's headings must appear in order in the generated page; extras only from the allowed set.

    Aligned by longest common subsequence, so one missing heading is reported alone rather than
    making every later heading look out of order."""
    problems = []
    matcher = difflib.SequenceMatcher(None, seed.headings, gen.headings, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("delete", "replace"):
            problems += [
                f"missing: seed heading {h!r} (absent or out of order)" for h in seed.headings[i1:i2]
            ]
        if tag in ("insert", "replace"):
            extras = [h for h in gen.headings[j1:j2] if not _allowed_extra(h)]
            problems += [f"unexpected: extra heading {h!r}" for h in extras]
    return problems


def dtype_problems(seed: PageFacts, gen: PageFacts) -> list[str]:
    return [
        f"dtypes[{key}]: seed {values} != generated {gen.dtypes.get(key)}"
        for key, values in seed.dtypes.items()
        if gen.dtypes.get(key) != values
    ]


def syntax_problems(seed: PageFacts, gen: PageFacts) -> list[str]:
    return [
        f"{form} line missing from generated page: {line}"
        for form in SYNTAX_FORMS
        for line in seed.syntax[form]
        if line not in gen.syntax[form]
    ]


# --- seeds against generated pages ---------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS, ids=[s.fixture for s in SEEDS])
def test_headings_match_generated_page_of_same_layout(seed: Seed) -> None:
    facts = seed_facts(seed)
    same_layout = [p for p in generated_pages(seed) if facts_of(p).layout == facts.layout]
    assert len(same_layout) == 1, f"no single generated {facts.layout} page for {seed.fixture}"
    assert heading_problems(facts, facts_of(same_layout[0])) == []


# Where a generated page declares the intrinsic as upstream's pto_instr.hpp does rather than as the
# seed page does (the spec's notes argue it): mnemonic -> (the seed's spelling, the generated one).
FOLLOWS_HEADER = {"pto.tpows": ("PTO_INTERNAL RecordEvent", "PTO_INST RecordEvent")}


@pytest.mark.parametrize(("seed", "page"), PAIRS, ids=PAIR_IDS)
def test_signature_matches(seed: Seed, page: Path) -> None:
    # The `std::enable_if_t` guard that keeps a form apart from its overloads is not on the seed pages.
    signature = facts_of(page).signature
    generated = re.sub(r",std::enable_if_t<.*?,int>=0>", ">", signature) if signature else signature
    expected = seed_facts(seed).signature
    if seed_facts(seed).mnemonic in FOLLOWS_HEADER and expected:
        theirs, ours = FOLLOWS_HEADER[seed_facts(seed).mnemonic]
        assert theirs in expected
        expected = expected.replace(theirs, ours)
    assert generated == expected


@pytest.mark.parametrize(("seed", "page"), PAIRS, ids=PAIR_IDS)
def test_dtype_lists_match(seed: Seed, page: Path) -> None:
    assert dtype_problems(seed_facts(seed), facts_of(page)) == []


@pytest.mark.parametrize(("seed", "page"), PAIRS, ids=PAIR_IDS)
def test_syntax_lines_present(seed: Seed, page: Path) -> None:
    assert syntax_problems(seed_facts(seed), facts_of(page)) == []


@pytest.mark.parametrize(("seed", "page"), PAIRS, ids=PAIR_IDS)
def test_generated_page_identity_and_consistency(seed: Seed, page: Path) -> None:
    gen = facts_of(page)
    assert gen.mnemonic == seed_facts(seed).mnemonic
    assert gen.conflicts == []


# --- the comparisons catch differences -----------------------------------------------------------

TLRELU_OP = "tile/ops/tile-scalar-and-immediate/tlrelu.md"
TLRELU_SEED = Seed("pto.tlrelu.txt", "tlrelu", "TLRELU")


def altered(relpath: str, old: str, new: str) -> PageFacts:
    text = (ISA / relpath).read_text(encoding="utf-8")
    assert old in text, f"fixture text {old!r} not in {relpath}"
    return parse_page(text.replace(old, new))


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("`half`, `float16_t`, `float`, `float32_t`", "`half`, `float`, `float32_t`"),  # dropped type
        ("`half`, `float16_t`, `float`, `float32_t`", "`float16_t`, `half`, `float`, `float32_t`"),  # order
        ("`half`, `float` (floating", "`half`, `float`, `bfloat16_t` (floating"),  # extra type on A5
    ],
)
def test_dtype_difference_is_reported(old: str, new: str) -> None:
    problems = dtype_problems(seed_facts(TLRELU_SEED), altered(TLRELU_OP, old, new))
    assert len(problems) == 1


def test_syntax_difference_is_reported() -> None:
    gen = altered(TLRELU_OP, "tlrelu %src, %slope", "tlrelu %src, %alpha")
    assert syntax_problems(seed_facts(TLRELU_SEED), gen) == [
        "pto_asm line missing from generated page: %dst = tlrelu %src, %slope : !pto.tile<...>, f32"
    ]
    gen = altered(TLRELU_OP, "outs(%dst : !pto.tile_buf<...>)", "outs(%out : !pto.tile_buf<...>)")
    assert [p.split()[0] for p in syntax_problems(seed_facts(TLRELU_SEED), gen)] == ["dps"]


def test_signature_difference_is_reported() -> None:
    gen = altered(TLRELU_OP, "TileDataSrc& src,", "TileDataSrc src,")
    assert gen.signature is not None
    assert gen.signature != seed_facts(TLRELU_SEED).signature


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("## Side Effects", "## Side-Effects", {"missing", "unexpected"}),  # renamed
        ("## Exceptions\n", "## Exceptions\n\n## Errata\n", {"unexpected"}),  # unknown extra section
        ("## Side Effects\n", "", {"missing"}),  # dropped
        ("## Constraints\n", "## Examples\n", {"missing", "unexpected"}),  # disallowed duplicate
    ],
)
def test_heading_difference_is_reported(old: str, new: str, expected: set[str]) -> None:
    problems = heading_problems(seed_facts(TLRELU_SEED), altered(TLRELU_OP, old, new))
    assert {p.split(":")[0] for p in problems} == expected


def test_heading_order_difference_is_reported() -> None:
    text = (ISA / TLRELU_OP).read_text(encoding="utf-8")
    swapped = (
        text.replace("## Inputs", "## @")
        .replace("## Side Effects", "## Inputs")
        .replace("## @", "## Side Effects")
    )
    problems = heading_problems(seed_facts(TLRELU_SEED), parse_page(swapped))
    assert {p.split(":")[0] for p in problems} == {"missing", "unexpected"}


# --- the parser on each seed ---------------------------------------------------------------------

TLRELU_DECL = (
    "template <typename TileDataDst, typename TileDataSrc, typename... WaitEvents>\n"
    "PTO_INST RecordEvent TLRELU(TileDataDst &dst, TileDataSrc &src, typename TileDataSrc::DType scalar,\n"
    "                            WaitEvents &... events);"
)
TPOWS_DEFAULT = ["float", "half", "int32_t", "uint32_t", "int16_t", "uint16_t", "int8_t", "uint8_t"]


@pytest.mark.parametrize("seed", SEEDS, ids=[s.fixture for s in SEEDS])
def test_seed_is_fully_placed(seed: Seed) -> None:
    facts = seed_facts(seed)
    assert facts.unplaced == []
    assert facts.conflicts == []
    assert facts.mnemonic == f"pto.{seed.op}"


def test_parse_tlrelu_capture() -> None:
    f = seed_facts(TLRELU_SEED)
    assert (f.layout, f.title, f.instruction_set) == ("op", "pto.tlrelu", "Tile Scalar And Immediate")
    assert f.headings == [
        "Summary",
        "Mechanism",
        "Syntax",
        "AS Level 1 (SSA)",
        "AS Level 2 (DPS)",
        "C++ Intrinsic",
        "Inputs",
        "Expected Outputs",
        "Side Effects",
        "Constraints",  # the callout title repeating it is not a second heading
        "Exceptions",
        "Target-Profile Restrictions",
        "Examples",
        "Auto Mode",
        "Manual Mode",
        "PTO Assembly Form",
        "Related Ops / Instruction Set Links",
    ]
    assert f.signature == normalise_signature(TLRELU_DECL)
    assert f.header == "include/pto/common/pto_instr.hpp"
    assert f.dtypes == {"A2A3": ["half", "float16_t", "float", "float32_t"], "A5": ["half", "float"]}
    assert f.syntax == {
        "pto_asm": ["%dst = tlrelu %src, %slope : !pto.tile<...>, f32"],
        "ssa": ["%dst = pto.tlrelu %src, %scalar : (!pto.tile<...>, dtype) -> !pto.tile<...>"],
        "dps": ["pto.tlrelu ins(%src, %scalar : !pto.tile_buf<...>, dtype) outs(%dst : !pto.tile_buf<...>)"],
    }
    assert f.related == {
        "overview": "Tile Scalar And Immediate",
        "previous": "pto.txors",
        "next": "pto.taddsc",
    }
    # Flattened bullets are re-split, and the repeated stubs of nested items are dropped.
    assert f.constraints[0] == "Tile location must be vector (TileData::Loc == TileType::Vec)."
    assert "Slope scalar type must match the Tile data type." in f.constraints
    assert len(f.constraints) == 5
    assert len(f.exceptions) == 2
    assert f.summary == "Leaky ReLU with a scalar slope."
    assert len(f.examples) == 3 and "TLRELU(out, x, 0.1f);" in f.examples[0]


def test_parse_vlrelu_capture() -> None:
    f = seed_facts(SEEDS[1])
    assert (f.layout, f.instruction_set) == ("op", "Vector-Scalar Instructions")
    assert f.signature is None and f.header is None
    assert f.dtypes == {"forms": ["f16", "f32"]}
    assert f.syntax == {
        "pto_asm": ["vlrelu %dst, %src, %slope, %mask : !pto.vreg<NxT>, T"],
        "ssa": [
            "%result = pto.vlrelu %input, %scalar, %mask : !pto.vreg<NxT>, T, !pto.mask<G> -> !pto.vreg<NxT>"
        ],
        "dps": [],
    }
    assert f.related == {
        "overview": "Vector-Scalar Instructions",
        "previous": "pto.vshrs",
        "next": "pto.vaddcs",
    }
    assert "Syntax" in f.headings and "C++ Intrinsic" not in f.headings


def test_parse_tpows_capture() -> None:
    f = seed_facts(SEEDS[2])
    assert f.layout == "op"
    assert f.dtypes == {
        "PowAlgorithm::DEFAULT": TPOWS_DEFAULT,
        "PowAlgorithm::HIGH_PRECISION": ["float", "half", "bfloat16_t"],
    }
    # The capture wraps the declaration and writes "DstTile &dst"; normalisation makes that irrelevant.
    assert f.signature == normalise_signature(
        "template <auto PrecisionType = PowAlgorithm::DEFAULT, typename DstTile, typename BaseTile, "
        "typename TmpTile, typename... WaitEvents> PTO_INTERNAL RecordEvent TPOWS(DstTile& dst, "
        "BaseTile& base, typename DstTile::DType exp, TmpTile& tmp, WaitEvents&... events);"
    )
    assert f.math == r"\mathrm{dst}_{r,c} = \mathrm{pow}(\mathrm{base}_{r,c}, \mathrm{exp})"
    assert f.headings[-1] == "Examples"  # the capture is truncated there
    assert f.syntax["pto_asm"] == ["%dst = tpows %base, %exp : !pto.tile<...>, dtype -> !pto.tile<...>"]


def test_parse_tprelu_markdown() -> None:
    f = seed_facts(SEEDS[3])
    assert (f.layout, f.title, f.instruction_set) == ("ref", "TPRELU", None)
    assert f.headings == [
        "Tile Operation Diagram",
        "Introduction",
        "Math Interpretation",
        "Assembly Syntax",
        "AS Level 1 (SSA)",  # written "IR Level 1 (SSA)"
        "AS Level 2 (DPS)",
        "C++ Intrinsic",
        "Constraints",
        "Examples",
        "ASM Form Examples",
        "Auto Mode",
        "Manual Mode",
        "PTO Assembly Form",
    ]
    assert f.signature == (
        "template<typename TileData,typename...WaitEvents>PTO_INST RecordEvent "
        "TPRELU(TileData&dst,TileData&src0,TileData&src1,WaitEvents&...events);"
    )
    assert f.dtypes == {}
    assert f.diagram == "TPRELU tile operation"
    assert f.math is not None and f.math.startswith(r"\mathrm{dst}_{i,j} = (\mathrm{src0}_{i,j} > 0)")
    # The "# IR Level 2 (DPS)" comment in the ASM block switches to dps; the repeat is deduplicated.
    assert all(len(lines) == 1 for lines in f.syntax.values())


def test_parse_tmaxs_capture() -> None:
    f = seed_facts(SEEDS[4])
    assert (f.layout, f.title, f.diagram) == ("ref", "TMAXS", "TMAXS tile operation")
    assert f.dtypes["A2A3"] == ["int32_t", "int16_t", "half", "float"]
    assert len(f.dtypes["A5"]) == 9 and f.dtypes["A5"][0] == "int32_t"
    assert f.summary == "Elementwise max of a tile and a scalar: max(src, scalar)."
    assert f.syntax["pto_asm"] == ["%dst = tmaxs %src, %scalar : !pto.tile<...>, f32"]


def test_parse_generated_dependent_dtypes_share_the_seed_key() -> None:
    f = facts_of(op_page("tpows"))
    assert f.dtypes["PowAlgorithm::DEFAULT"] == TPOWS_DEFAULT
    assert f.dtypes["A5/PowAlgorithm::HIGH_PRECISION"] == ["float", "half", "bfloat16_t"]
    assert f.notes and "PTO_INTERNAL" in f.notes[0]  # the "Source notes" callout is kept apart


# --- the parser on small pages -------------------------------------------------------------------


def test_signature_spacing_is_normalised() -> None:
    assert normalise_signature("void F(DstTile &dst,  Src& src , int  n);") == normalise_signature(
        "void F(DstTile& dst, Src &src,\n        int n);"
    )


MARKDOWN_PAGE = """\
# pto.tfoo

`pto.tfoo` is part of the [Foo Ops](../foo.md) instruction set.

## Summary

Does foo.

## Constraints

!!! warning "Constraints"
    - **Implementation checks (A5)**:
        - `TileData::DType` must be one of: `half`, `float`.
"""

CAPTURED_PAGE = """\
pto.tfoo¶
pto.tfoo is part of the Foo Ops instruction set.
Summary¶
Does foo.
Constraints¶
Constraints
-
Implementation checks (A5):
TileData::DTypemust be one of:half,float.- Tile layout must be row-major (
TileData::isRowMajor).
"""


def test_markdown_and_capture_give_the_same_facts() -> None:
    md, cap = parse_page(MARKDOWN_PAGE), parse_page(CAPTURED_PAGE)
    for f in (md, cap):
        assert (f.title, f.mnemonic, f.instruction_set) == ("pto.tfoo", "pto.tfoo", "Foo Ops")
        assert f.headings == ["Summary", "Constraints"]
        assert f.dtypes == {"A5": ["half", "float"]}
        assert f.summary == "Does foo."
        assert f.unplaced == []
    assert cap.constraints[-1] == "Tile layout must be row-major (TileData::isRowMajor)."


def test_unplaced_lines_are_reported() -> None:
    page = "# TFOO\n\nA stray remark.\n\n## Assembly Syntax\n\nSee the grammar.\n\n## Errata\n\nnone\n"
    f = parse_page(page)
    assert f.unplaced == ["A stray remark.", "See the grammar.", "none"]
    assert f.headings == ["Assembly Syntax", "Errata"]


def test_bare_lines_are_headings_only_in_captures() -> None:
    # In a capture a bare "Examples" line is a heading; in Markdown it is body text.
    assert parse_page("TFOO\nIntroduction\nHello.\nExamples\nfoo();\n").headings == [
        "Introduction",
        "Examples",
    ]
    assert parse_page("# TFOO\n## Introduction\nHello.\nExamples\n").headings == ["Introduction"]


def test_intrinsic_overloads_and_prose() -> None:
    page = (
        "# TX\n## C++ Intrinsic\nDeclared in `a.hpp`:\nThe intrinsic is (roughly) this.\n"
        "```cpp\ntemplate <typename T>\nPTO_INST RecordEvent TX(T &dst);\n"
        "PTO_INST RecordEvent TX(T &dst, int n);\n```\n"
    )
    f = parse_page(page)
    assert f.header == "a.hpp"
    assert f.signatures == [
        "template<typename T>PTO_INST RecordEvent TX(T&dst);",
        "PTO_INST RecordEvent TX(T&dst,int n);",
    ]
    assert f.signature == f.signatures[0]
    assert f.unplaced == ["The intrinsic is (roughly) this."]
