"""TRANDOM (ptogen/opkinds/random.py): the golden's cipher is Philox4x32, held here to the published
known-answer vectors (Random123's tests/kat_vectors, the `philox4x32 7` and `philox4x32 10` lines);
the element order and counter increment are the spec's; the key and counter are array facts of
targets.yaml `structs:`. (The op's generated cases run in tests/test_simulator.py.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ptogen.cli import main
from ptogen.opkinds.random import add_counter, philox4x32, random_tile

from ..helpers import ROOT, edit

ZEROS = ((0, 0, 0, 0), (0, 0))
ONES = ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2)
PI = ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0))


@pytest.mark.parametrize(
    ("rounds", "state", "want"),
    [
        (7, ZEROS, (0x5F6FB709, 0x0D893F64, 0x4F121F81, 0x4F730A48)),
        (7, ONES, (0x5207DDC2, 0x45165E59, 0x4D8EE751, 0x8C52F662)),
        (7, PI, (0x4DFCCABA, 0x190A87F0, 0xC47362BA, 0xB6B5242A)),
        (10, ZEROS, (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
        (10, ONES, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
        (10, PI, (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
    ],
)
def test_the_cipher_gives_the_published_known_answers(
    rounds: int, state: tuple[tuple[int, ...], tuple[int, ...]], want: tuple[int, ...]
) -> None:
    counter, key = state
    assert philox4x32(counter, key, rounds) == want


def test_counters_add_as_128_bit_integers_word_0_lowest() -> None:
    assert add_counter((0xFFFFFFFF, 0xFFFFFFFF, 5, 0), 1) == (0, 0, 6, 0)
    assert add_counter((0xFFFFFFFF,) * 4, 2) == (1, 0, 0, 0)


def test_element_order_lanes_then_words_and_row_stride_increment() -> None:
    key = (0x1234, 0x56789)
    counter = (7, 0, 0, 0)
    # 2 valid rows of 300 columns in a tile of 512 columns: two chunks a row, the base advancing by
    # RowStride / 4 = 128 per chunk.
    tile = random_tile(counter, key, 10, 512, 2, 300)
    for r, q, lane, w in [(0, 0, 0, 0), (0, 0, 5, 3), (0, 1, 10, 0), (1, 0, 63, 2), (1, 1, 43, 0)]:
        base = 7 + (r * 2 + q) * 128 + lane
        assert tile[r, q * 256 + w * 64 + lane] == philox4x32((base, 0, 0, 0), key, 10)[w]
    assert tile.shape == (2, 300)


def test_the_key_and_counter_are_array_facts_declared_before_every_backend() -> None:
    enums = (ROOT / "generated/include/pto/common/pto_enums.hpp").read_text()
    assert re.search(r"using TRandomKey = uint32_t\[2\];", enums)
    assert re.search(r"using TRandomCounter = uint32_t\[4\];", enums)


def test_an_array_fact_states_its_element_type_and_length(
    spec_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = edit(spec_project, "specs/targets.yaml", "  - name: TRandomKey\n", "  - name: TRandomKey\n")
    edit(
        spec_project,
        "specs/targets.yaml",
        "    array_of: uint32_t\n    length: 2\n",
        "    array_of: uint32_t\n",
    )
    assert main(["--root", str(spec_project), "gen"]) == 2
    err = capsys.readouterr().err
    assert f"specs/targets.yaml:{line}: structs[1]: an array type states both `array_of` and `length`" in err


def test_the_template_value_rule_reads_its_doc_line_back_and_breaks_with_another_value() -> None:
    from ptogen.rules import PageLine
    from ptogen.rules.template_value import TemplateValueRule

    rule = TemplateValueRule(param="Rounds", values=[7, 10])
    assert rule.outside({}) == "11"
    line = PageLine(None, "Template argument `Rounds` must be `7` or `10` (default 10).")
    assert TemplateValueRule.recognise(line, None) == {  # type: ignore[arg-type]
        "param": "Rounds",
        "values": [7, 10],
        "note": "default 10",
    }
    checks = " ".join((ROOT / "generated/include/pto/profiles/a5_checks.hpp").read_text().split())
    # The check names the condition and asserts it with the rule's message.
    assert re.search(
        r"constexpr bool (r\d+_template_value) = \(Rounds == 7 \|\| Rounds == 10\); "
        r'static_assert\(\1, "TRANDOM \[A5\]: template argument Rounds must be 7 or 10"\);',
        checks,
    )


def test_a_template_value_rule_names_a_value_parameter(
    spec_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rel = "specs/ops/irregular_and_complex/trandom.yaml"
    line = edit(spec_project, rel, "param: Rounds,", "param: Rouns,")
    assert main(["--root", str(spec_project), "gen"]) == 2
    assert (
        f"{rel}:{line}: constraints[2].param: 'Rouns' is not a value template parameter of TRANDOM"
        in capsys.readouterr().err
    )
