"""`ptogen diff-header`: declaration drift against a hand-written header (a small one written here,
so the test needs no upstream checkout)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptogen.cli import main
from ptogen.importer.declarations import declaration_shapes, header_drift

ROOT = Path(__file__).resolve().parents[1]
GENERATED = (ROOT / "generated/include/pto/common/pto_instr.hpp").read_text()

HAND_WRITTEN = """
// TABS as the generated header declares it, under other names.
template <typename D, typename S, typename... Ev>
PTO_INST RecordEvent TABS(D &out, S &in, Ev &... ev) { TSYNC(ev...); return {}; }
// A TNEG form nobody generates: a scratch tile.
template <typename D, typename S, typename T, typename... Ev>
PTO_INST RecordEvent TNEG(D &dst, S &src, T &tmp, Ev &... events) { return {}; }
"""


def test_shapes_ignore_names_and_guards() -> None:
    a = declaration_shapes(
        "template <typename A, typename B, typename... W, std::enable_if_t<all_events_v<W...>, int> = 0>\n"
        "PTO_INST RecordEvent TX(A& a, B& b, W&... w) {}"
    )
    b = declaration_shapes(
        "template <typename X, typename Y, typename... E>\nPTO_INST RecordEvent TX(X &x, Y &y, E &... e);"
    )
    assert a == b == {"TX": ["<typename, typename, typename...>(T0&, T1&, P&...)"]}


def test_drift_reports_missing_and_extra_forms() -> None:
    lines, total, found = header_drift(HAND_WRITTEN, GENERATED)
    assert (total, found) == (2, 1)
    assert any(line.startswith("TNEG: upstream declares TNEG<") for line in lines), lines
    # Every other covered intrinsic is reported as not declared by this tiny header.
    assert "TADD: not declared upstream" in lines
    assert not any(line.startswith("TABS:") for line in lines)


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    header = tmp_path / "pto_instr.hpp"
    header.write_text(HAND_WRITTEN)
    assert main(["--root", str(ROOT), "diff-header", str(header)]) == 1
    out, err = capsys.readouterr()
    assert "TNEG: upstream declares" in out
    assert "1 of 2 upstream declarations" in err
    assert main(["--root", str(ROOT), "diff-header", str(tmp_path / "missing.hpp")]) == 2
    assert "cannot read" in capsys.readouterr().err
