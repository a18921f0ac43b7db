"""`ptogen import` on page shapes that used to fail: each writes a spec (reporting what it could
not place) or exits 2 with one line. The fixtures are small pages written for these tests."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from ptogen.cli import main

from .helpers import ROOT

PAGES = ROOT / "tests/fixtures/import"


def _import(page: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["--root", str(ROOT), "import", str(page), "--out", str(out)])
    got = capsys.readouterr()
    return code, got.out, got.err


def _spec(out: Path, iset: str, op: str) -> Any:
    return YAML(typ="safe").load((out / iset / f"{op}.yaml").read_text())


def test_html_table_and_html_in_descriptions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _import(PAGES / "html_operands.md", tmp_path, capsys)
    assert code == 0, err
    spec = _spec(tmp_path, "elementwise_tile_tile", "tshl")
    ops = {o["name"]: o for o in spec["operands"]}
    assert ops["src0"]["description"] == "Values to shift. Read inside the valid region."
    assert ops["src1"]["description"] == "Shift counts, each **below** the bit width."
    assert ops["dst"]["description"] == "Holds `src0 << src1` | nothing else."
    assert "`0 <= i < R`" in spec["mechanism"]  # a code span is no raw HTML
    # the enable_if guard is dropped, and a declaration without its `;` still counts
    assert [t["name"] for t in spec["intrinsic"]["template"]][-1] == "WaitEvents"


def test_further_results_become_extra_outputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _import(PAGES / "carry_outputs.md", tmp_path, capsys)
    assert code == 0, err
    spec = _spec(tmp_path, "vector_scalar", "vaddcs")
    assert list(spec["semantics"]["extra_outputs"]) == ["cout"]
    assert {o["name"]: o["kind"] for o in spec["operands"]}["cout"] == "mask"
    assert "no semantics for the further result(s) cout" in out


def test_missing_declaration_is_written_from_the_operands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _import(PAGES / "no_declaration.md", tmp_path, capsys)
    assert code == 0, err
    intrinsic = _spec(tmp_path, "tile_scalar_and_immediate", "taxpy")["intrinsic"]
    assert intrinsic["name"] == "TAXPY"
    assert [p["name"] for p in intrinsic["params"]][0] == "dst"
    assert "the page gives no C++ declaration of TAXPY" in out


def test_operand_named_apart_from_its_parameter(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _import(PAGES / "renamed_operand.md", tmp_path, capsys)
    assert code == 0, err
    spec = _spec(tmp_path, "elementwise_tile_tile", "tcmp")
    mode = next(o for o in spec["operands"] if o["kind"] == "attr")
    assert (mode["name"], mode["enum"], mode["description"]) == ("mode", "CmpMode", "Which comparison.")
    param = next(p for p in spec["intrinsic"]["params"] if p["name"] == "cmpMode")
    assert param["operand"] == "mode"


def test_page_without_a_title_is_named_by_its_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _import(PAGES / "tile/ops/elementwise-tile-tile/tprelu.md", tmp_path, capsys)
    assert code == 0, err
    assert _spec(tmp_path, "elementwise_tile_tile", "tprelu")["mnemonic"] == "pto.tprelu"
    assert "pto.tprelu taken from its file name" in out


def test_unknown_set_gets_a_proposal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = PAGES / "vector/ops/widget-ops/vwidget.md"
    code, _, err = _import(page, tmp_path, capsys)
    assert code == 2
    (line,) = err.splitlines()
    assert line.startswith(f"error: {page}: pto.vwidget belongs to no instruction set")
    assert "id: widget_ops" in line and "doc_dir: vector/ops/widget-ops" in line
    assert "order: [pto.vwidget]" in line and "`instruction_sets:`" in line


def test_op_outside_order_is_written_with_the_next_step(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (PAGES / "renamed_operand.md").read_text().replace("tcmp", "tcmpx").replace("TCMP", "TCMPX")
    page = tmp_path / "tcmpx.md"
    page.write_text(text)
    code, out, err = _import(page, tmp_path / "o", capsys)
    assert code == 0, err
    assert (tmp_path / "o/elementwise_tile_tile/tcmpx.yaml").is_file()
    assert "next: add pto.tcmpx to the `order:` of instruction set elementwise_tile_tile" in out


def test_an_unforeseen_failure_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import ptogen.importer.build as build

    def broken(text: str, keep_markdown: bool = False) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(build, "parse_page", broken)
    code, _, err = _import(PAGES / "renamed_operand.md", tmp_path, capsys)
    assert code == 2
    assert err.splitlines() == [
        f"error: {PAGES / 'renamed_operand.md'}: cannot read this page's layout (RuntimeError: boom)"
    ]


@pytest.mark.skipif(
    not os.environ.get("PTOGEN_UPSTREAM"), reason="set PTOGEN_UPSTREAM to an upstream checkout"
)
def test_every_upstream_page_of_the_covered_sets_imports() -> None:
    from ptogen.importer.survey import op_of, survey
    from ptogen.spec.load import load_specs

    targets = load_specs(ROOT / "specs", ROOT).targets
    results = survey(Path(os.environ["PTOGEN_UPSTREAM"]), targets)
    ordered = {m for s in targets.instruction_sets for m in s.order}
    refused = [f"{r.page}: {r.reason}" for r in results if r.unplaced is None and op_of(r.page) in ordered]
    assert len(results) > 100 and not refused, refused
    for r in results:  # a refusal is one line
        assert "\n" not in r.reason
