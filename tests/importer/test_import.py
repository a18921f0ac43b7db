"""`ptogen import` round trip on the seed pages: import -> gen -> the generated page carries the
seed's facts; importing the generated page again gives the same spec."""

from __future__ import annotations

import difflib
import shutil
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from ptogen.cli import main
from ptogen.importer.pagefacts import parse_file

from ..helpers import ROOT

SEEDS = {
    "pto.tlrelu.txt": ("tile_scalar_and_immediate", "tlrelu"),
    "pto.vlrelu.txt": ("vector_scalar", "vlrelu"),
    "pto.tpows.txt": ("tile_scalar_and_immediate", "tpows"),
    "TPRELU.md": ("elementwise_tile_tile", "tprelu"),
    "TMAXS.txt": ("tile_scalar_and_immediate", "tmaxs"),
}
# Headings a generated page may add to a seed's (see tests/docs/test_seed_pages.py).
EXTRA_HEADINGS = {
    "Related Ops / Instruction Set Links",
    "Tile Operation Diagram",
    "PTO Assembly Form",
    "Auto Mode",
    "Manual Mode",
    "At a Glance",
}


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project with only targets.yaml, into which all five seeds are imported and generated."""
    root = tmp_path_factory.mktemp("adopt")
    shutil.copytree(ROOT / "templates", root / "templates")
    (root / "specs").mkdir()
    shutil.copy(ROOT / "specs/targets.yaml", root / "specs/targets.yaml")
    shutil.copy(ROOT / ".clang-format", root / ".clang-format")
    pages = [str(ROOT / "tests/fixtures" / name) for name in SEEDS]
    assert main(["--root", str(root), "import", *pages, "--out", str(root / "specs/ops")]) == 0
    assert main(["--root", str(root), "gen"]) == 0
    return root


def _generated_pages(root: Path, iset: str, op: str) -> list[Path]:
    pages = list((root / "generated/docs/isa").glob(f"*/ops/*/{op}.md"))
    ref = root / "generated/docs/isa" / f"{op.upper()}.md"
    return pages + ([ref] if ref.exists() else [])


@pytest.mark.parametrize("seed", SEEDS)
def test_generated_pages_carry_the_seed_facts(imported: Path, seed: str) -> None:
    facts = parse_file(ROOT / "tests/fixtures" / seed)
    pages = [parse_file(p) for p in _generated_pages(imported, *SEEDS[seed])]
    same_layout = [p for p in pages if p.layout == facts.layout]
    assert same_layout, f"no generated page in the {facts.layout} layout"
    for page in pages:
        assert page.signature == facts.signature
        for key, values in facts.dtypes.items():
            assert page.dtypes.get(key) == values, key
        for form, lines in facts.syntax.items():
            for line in lines:
                assert line in page.syntax.get(form, []) or line in sum(page.syntax.values(), []), line
    page = same_layout[0]
    matcher = difflib.SequenceMatcher(a=facts.headings, b=page.headings, autojunk=False)
    missing = [
        h
        for tag, i1, i2, _, _ in matcher.get_opcodes()
        if tag in ("delete", "replace")
        for h in facts.headings[i1:i2]
    ]
    extra = {
        h
        for tag, _, _, j1, j2 in matcher.get_opcodes()
        if tag in ("insert", "replace")
        for h in page.headings[j1:j2]
    }
    assert not missing and extra <= EXTRA_HEADINGS, (missing, extra)


@pytest.mark.parametrize("seed", SEEDS)
def test_reimporting_the_generated_page_gives_the_same_spec(
    imported: Path, seed: str, tmp_path: Path
) -> None:
    iset, op = SEEDS[seed]
    yaml = YAML(typ="safe")
    first = yaml.load((imported / "specs/ops" / iset / f"{op}.yaml").read_text())
    page = next(p for p in _generated_pages(imported, iset, op) if "/ops/" in p.as_posix())
    assert main(["--root", str(imported), "import", str(page), "--out", str(tmp_path)]) == 0
    again = yaml.load((tmp_path / iset / f"{op}.yaml").read_text())
    assert again == first


def test_unplaced_facts_are_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (
        (ROOT / "tests/fixtures/TMAXS.txt")
        .read_text()
        .replace("Examples", "Weird Section\u00b6\nsomething odd here\nExamples", 1)
    )
    page = tmp_path / "TMAXS.md"
    page.write_text(text)
    assert main(["--root", str(ROOT), "import", str(page), "--out", str(tmp_path / "out")]) == 0
    assert "  could not place: something odd here" in capsys.readouterr().out.splitlines()
    # The flattened TLRELU capture lost its math: the importer says so instead of guessing.
    seed = str(ROOT / "tests/fixtures/pto.tlrelu.txt")
    assert main(["--root", str(ROOT), "import", seed, "--out", str(tmp_path / "out")]) == 0
    assert "could not place: no element semantics on the page" in capsys.readouterr().out


def test_page_without_mnemonic_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "nothing.md"
    page.write_text("Some text\n\nthat is not an ISA page.\n")
    assert main(["--root", str(ROOT), "import", str(page), "--out", str(tmp_path / "out")]) == 2
    assert f"error: {page}:" in capsys.readouterr().err


def test_existing_spec_is_not_overwritten_without_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seed = str(ROOT / "tests/fixtures/TMAXS.txt")
    assert main(["--root", str(ROOT), "import", seed, "--out", str(tmp_path)]) == 0
    assert main(["--root", str(ROOT), "import", seed, "--out", str(tmp_path)]) == 2
    assert "exists (use --force" in capsys.readouterr().err
    assert main(["--root", str(ROOT), "import", seed, "--out", str(tmp_path), "--force"]) == 0
