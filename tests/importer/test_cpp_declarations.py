"""The one reader of C++ declarations: a header's spelling and a page's normalised one read the
same template parameters, and a page's declaration becomes the spec's entries."""

from __future__ import annotations

from ptogen.importer.cpp import DECLARATION, parse_signature, split_top_level, template_param
from ptogen.importer.declarations import shape
from ptogen.importer.pagefacts import normalise_signature

HEADER = (
    "template <typename TileData, typename T = float, pto::RoundMode mode = pto::RoundMode::CAST_RINT,\n"
    "          typename... WaitEvents, std::enable_if_t<is_tile_data_v<TileData>, int> = 0>\n"
    "PTO_INST RecordEvent TFOO(TileData &dst, TileData &src, T scale, WaitEvents &... events);"
)


def test_header_and_page_spellings_read_the_same_template_parameters() -> None:
    m = DECLARATION.search(HEADER)
    assert m is not None and m.group(2) == "TFOO"
    page = normalise_signature(HEADER)
    page_template = page[len("template<") : page.index(">PTO_INST")]
    header_params = [template_param(t) for t in split_top_level(m.group(1))]
    assert header_params == [template_param(t) for t in split_top_level(page_template)]
    assert header_params == [
        ("typename", "TileData", None),
        ("typename", "T", "float"),
        ("value", "mode", "pto::RoundMode::CAST_RINT"),
        ("pack", "WaitEvents", None),
        ("guard", "", None),
    ]
    assert shape(m.group(1), m.group(3)) == (
        "<typename, typename = _, pto::RoundMode _ = pto::RoundMode::CAST_RINT, typename...>"
        "(T0&, T0&, T1, P&...)"
    )


def test_a_page_declaration_becomes_spec_entries() -> None:
    qual, returns, name, template, params = parse_signature(normalise_signature(HEADER))
    assert (qual, returns, name) == ("PTO_INST", "RecordEvent", "TFOO")
    assert template == [
        {"name": "TileData", "kind": "typename", "guard": 0},
        {"name": "T", "kind": "typename", "default": "float"},
        {"name": "mode", "kind": "value", "type": "pto::RoundMode", "default": "pto::RoundMode::CAST_RINT"},
        {"name": "WaitEvents", "kind": "pack"},
    ]
    assert params == [
        {"name": "dst", "type": "TileData", "operand": "dst"},
        {"name": "src", "type": "TileData", "operand": "src"},
        {"name": "scale", "value_type": "T", "operand": "scale"},
        {"name": "events", "type": "WaitEvents", "events": True},
    ]


def test_lists_split_at_top_level_commas_only() -> None:
    assert split_top_level("a, f<b, c>(d, e), g") == ["a", "f<b, c>(d, e)", "g"]
    assert split_top_level("i + r0, x[j, k]", "([", ")]") == ["i + r0", "x[j, k]"]
    assert split_top_level("") == []
