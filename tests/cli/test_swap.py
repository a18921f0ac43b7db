"""The swap check's header surgery (`ptogen upstream-st --swap`), on a small hand-written header in
upstream's form, so the test needs no upstream checkout."""

from __future__ import annotations

import pytest

from ptogen.importer.declarations import declarations
from ptogen.swap import swap_header

from ..helpers import ROOT

GENERATED = (ROOT / "generated/include/pto/common/pto_instr.hpp").read_text()

UPSTREAM = """#ifndef PTO_INSTR_HPP
#define PTO_INSTR_HPP
#include "pto/common/pto_instr_impl.hpp"
namespace pto {
template <typename T, typename AddrType>
PTO_INST void TASSIGN(T& obj, AddrType addr)
{
    MAP_INSTR_IMPL(TASSIGN, obj, addr);
}
template <typename D, typename S, typename... E>
PTO_INST RecordEvent TABS(D& dst, S& src, E&... events)
{
    TSYNC(events...);
    MAP_INSTR_IMPL(TABS, dst, src);
    return {};
}
template <typename D, typename S, typename... E>
PTO_INST RecordEvent TNOTCOVERED(D& dst, S& src, E&... events)
{
    return {};
}
#ifdef PTO_NPU_ARCH_A5
template <typename D, typename S, typename... E>
PTO_INST RecordEvent TNEG(D& dst, S& src, E&... events)
{
    MAP_INSTR_IMPL(TNEG, dst, src);
    return {};
}
#endif
} // namespace pto
#endif
"""


def test_covered_definitions_are_replaced_and_conditional_ones_kept() -> None:
    text, swapped, kept = swap_header(UPSTREAM, GENERATED)
    assert swapped == ["TABS", "TASSIGN"]  # an intrinsic returning nothing is swapped too
    assert kept == ["TNEG"]  # declared for one target only upstream: stays upstream's
    # The generated TABS (twin and public form) replaces upstream's, in place.
    assert "namespace profiled" in text and "check_TABS" in text
    assert text.index("RecordEvent TABS") < text.index("TNOTCOVERED")
    assert declarations(text)["TABS"] == declarations(GENERATED)["TABS"]
    assert declarations(text)["TASSIGN"] == declarations(GENERATED)["TASSIGN"]  # both forms, in place
    # Everything else is upstream's, and the check headers come right after the backend include.
    assert "PTO_INST RecordEvent TNOTCOVERED(D& dst, S& src, E&... events)" in text
    assert "#ifdef PTO_NPU_ARCH_A5" in text and "MAP_INSTR_IMPL(TNEG, dst, src)" in text
    assert text.count("TSYNC(events...);\n    MAP_INSTR_IMPL(TABS, dst, src);") == 0
    assert '#include "pto/common/pto_instr_impl.hpp"\n#include <pto/common/check_support.hpp>' in text


def test_a_header_without_the_backend_include_is_refused() -> None:
    with pytest.raises(ValueError, match="pto_instr_impl.hpp"):
        swap_header(UPSTREAM.replace('#include "pto/common/pto_instr_impl.hpp"', ""), GENERATED)
