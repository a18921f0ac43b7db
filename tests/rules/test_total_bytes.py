"""Rule kind `total_bytes`: tiles together fit a byte budget (TMRGSORT in the unified buffer)."""

from __future__ import annotations

from ptogen.rule_api import TileDecl
from ptogen.rules import PageLine
from ptogen.rules.total_bytes import TotalBytesRule

from .common import OPS, PAGE, failing_cases


def test_tmrgsort_tiles_fit_the_unified_buffer_per_declaration() -> None:
    op = OPS["tmrgsort"]
    rules = [r for r in op.spec.constraints if isinstance(r, TotalBytesRule)]
    assert [(r.forms, r.operands) for r in rules] == [
        ([0], ["src", "dst"]),
        ([1], ["tmp", "src0", "src1", "src2", "src3"]),
        ([2], ["tmp", "src0", "src1", "src2"]),
        ([3], ["tmp", "src0", "src1"]),
    ]
    (rv,) = [rv for rv in op.forms[0].rules_for("A5") if rv.rule is rules[0]]
    assert rv.condition == (
        "(sizeof(typename SrcTileData::DType) * SrcTileData::Numel"
        " + sizeof(typename DstTileData::DType) * DstTileData::Numel) < 196608"
    )
    failing = failing_cases("tmrgsort")
    for k, rule in enumerate(rules):
        for profile in ("A2A3", "A5"):
            (case,) = [
                c
                for c in failing
                if c.startswith(f"fail_{profile.lower()}_") and c.endswith(f"total_bytes_f{k}")
            ]
            assert failing[case] == [f"TMRGSORT [{profile}]: {rule.text(op)}"]
        assert not any(c.startswith("fail_cpu_") and c.endswith(f"total_bytes_f{k}") for c in failing)
    assert rules[0].text(op) == "the storage of src, dst together must be below 196608 bytes (192 KiB)"


def test_a_byte_budget_breaks_at_the_bound_and_reads_back() -> None:
    rule = TotalBytesRule(operands=["src", "dst"], below=1024)
    tiles = {n: TileDecl(n, "half", 1, 16, 1, 16) for n in ("src", "dst")}
    broken = rule.break_static(None, tiles)  # type: ignore[arg-type]  # the kind needs no context
    src = broken.tiles["src"]
    assert broken.changed == "src" and src.rows == 1 and src.valid_cols == 16
    assert 2 * src.cols + 2 * 16 >= 1024 > 2 * (src.cols - 16) + 2 * 16  # just past the bound
    # The page line as import sees it: code ticks and the lone `*` of the products removed.
    line = PageLine(
        "A2A3", "Total bytes: sizeof(src::DType)  src::Numel + sizeof(dst::DType)  dst::Numel < 1024."
    )
    assert TotalBytesRule.recognise(line, PAGE) == {"operands": ["src", "dst"], "below": 1024}
    bad = PageLine("A2A3", "Total bytes: sizeof(src::DType) * dst::Numel < 1024.")
    assert TotalBytesRule.recognise(bad, PAGE) is None
