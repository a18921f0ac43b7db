"""`ptogen import` on the page shapes of upstream's vector and scalar manuals: each snippet below is
a small page written for this test in one of those shapes, and reads into a spec the model takes."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptogen.importer.build import Imported, import_page

from ..helpers import checkout_specs


def _read(tmp_path: Path, name: str, text: str) -> Imported:
    page = tmp_path / name
    page.write_text(text)
    return import_page(page, checkout_specs().targets)


def _operands(got: Imported) -> list[tuple[str, str, str, str]]:
    return [(o["name"], o["kind"], o["role"], o["asm_type"]) for o in got.spec["operands"]]


def test_parenthesised_operand_types_and_a_wrapped_dps_line(tmp_path: Path) -> None:
    """A lane op whose SSA line puts its operand types in parentheses, and whose DPS line wraps
    before `outs(`: every operand keeps its type, the mask included, and the DPS line is one."""
    got = _read(
        tmp_path,
        "vmax.md",
        """# pto.vmax

`pto.vmax` is part of the [Binary Vector Instructions](../../binary-vector-ops.md) instruction set.

## Syntax

### AS Level 1 (SSA)

```mlir
%out = pto.vmax %a, %b, %mask : (!pto.vreg<NxT>, !pto.vreg<NxT>, !pto.mask<G>) -> !pto.vreg<NxT>
```

### AS Level 2 (DPS)

```mlir
pto.vmax ins(%a, %b, %mask : !pto.vreg<NxT>, !pto.vreg<NxT>, !pto.mask<G>)
          outs(%out : !pto.vreg<NxT>)
```
""",
    )
    assert got.spec["semantics"]["kind"] == "lane"
    assert _operands(got) == [
        ("out", "vreg", "dst", "!pto.vreg<NxT>"),
        ("a", "vreg", "src", "!pto.vreg<NxT>"),
        ("b", "vreg", "src", "!pto.vreg<NxT>"),
        ("mask", "mask", "mask", "!pto.mask<G>"),
    ]
    (dps,) = got.spec["syntax"]["dps"]
    assert dps.endswith("outs(%out : !pto.vreg<NxT>)") and dps.startswith("pto.vmax ins(")


def test_a_store_line_without_a_result_is_a_register_call(tmp_path: Path) -> None:
    """An SSA line with no result, an address with its displacement (`%dest[%offset]`) and an
    attribute, and no operand table: the call's arguments in the line's order, the displacement typed
    `index`; with no C++ on the page the builtin is made from them, and that is reported."""
    got = _read(
        tmp_path,
        "vsts.md",
        """# pto.vsts

`pto.vsts` is part of the [Vector Load/Store](../../vector-load-store.md) instruction set.

## Syntax

### AS Level 1 (SSA)

```mlir
pto.vsts %data, %base[%disp], %mask {dist = "DIST"} : !pto.vreg<NxT>, !pto.ptr<T, ub>, !pto.mask<G>
```

## Inputs

`%data` is stored at `%base` plus `%disp` where `%mask` is set.
""",
    )
    assert got.spec["builtin"]["name"] == "vsts"
    assert _operands(got) == [
        ("data", "scalar", "scalar", "!pto.vreg<NxT>"),
        ("base", "scalar", "scalar", "!pto.ptr<T, ub>"),
        ("disp", "scalar", "scalar", "index"),
        ("mask", "scalar", "scalar", "!pto.mask<G>"),
    ]
    assert [p["operand"] for p in got.spec["builtin"]["params"]] == ["data", "base", "disp", "mask"]
    assert any("shows no C++ call" in u for u in got.unplaced)


def test_a_line_without_a_mask_and_split_before_its_types(tmp_path: Path) -> None:
    """A rearrangement's SSA line with two results and no mask, its types on the next line; the
    results are the call's first arguments, and the page's C++ variables give the parameter types
    (a UB pointer of a two-word type keeps its type without its address-space qualifier)."""
    got = _read(
        tmp_path,
        "vintlv.md",
        """# pto.vintlv

`pto.vintlv` is part of the [Data Rearrangement](../../data-rearrangement.md) instruction set.

## Syntax

### AS Level 1 (SSA)

```mlir
%lo, %hi = pto.vintlv %x, %y
    : !pto.vreg<NxT>, !pto.vreg<NxT> -> !pto.vreg<NxT>, !pto.vreg<NxT>
```

## C++ Intrinsic

```cpp
vector_f32 lo;
vector_f32 hi;
vector_f32 x;
vector_f32 y;
vintlv(lo, hi, x, y);
```
""",
    )
    assert [o[:3] for o in _operands(got)] == [(n, "scalar", "scalar") for n in ("lo", "hi", "x", "y")]
    assert [(p["name"], p["type"]) for p in got.spec["builtin"]["params"]] == [
        ("lo", "vector_f32"),
        ("hi", "vector_f32"),
        ("x", "vector_f32"),
        ("y", "vector_f32"),
    ]


def test_a_store_split_before_its_types_with_pointer_variables(tmp_path: Path) -> None:
    """A store's SSA line with no result wrapped before its types, and C++ variables declared with
    `__ubuf__` and a two-word type (`unsigned int`)."""
    got = _read(
        tmp_path,
        "vbitsort.md",
        """# pto.vbitsort

`pto.vbitsort` is part of the [SFU And DSA Instructions](../../sfu-and-dsa-ops.md) instruction set.

## Syntax

### AS Level 1 (SSA)

```mlir
pto.vbitsort %out, %keys, %order, %times
    : !pto.ptr<T, ub>, !pto.ptr<T, ub>, !pto.ptr<i32, ub>, index
```

## C++ Intrinsic

```cpp
__ubuf__ float *out;
__ubuf__ float *keys;
__ubuf__ unsigned int *order;
uint8_t times = 1;
vbitsort(out, keys, order, times);
```
""",
    )
    assert [o[0] for o in _operands(got)] == ["out", "keys", "order", "times"]
    params = got.spec["builtin"]["params"]
    assert [p["type"] for p in params][:2] == ["float*", "float*"]
    assert params[3] == {"name": "times", "type": "uint8_t", "example": "1", "operand": "times"}
    assert any("'order': no C++ type" in u for u in got.unplaced)  # `unsigned int*` is no spec type


def test_type_cells_in_prose_and_a_table_of_values(tmp_path: Path) -> None:
    """A scalar page whose type cells hold prose around the type (`scalar `i64``, `` `index` or
    `i64` ``) and whose Inputs section follows the operand table with a table of token values under
    a heading of its own; and a C++ call that passes fewer arguments than the operand table lists."""
    got = _read(
        tmp_path,
        "pge-b16.md",
        """# pto.pge_b16

## C++ Intrinsic

```cpp
vector_bool mask = pge_b16(PAT_ALL);
```

## Inputs

| Operand | Type | Description |
|---------|------|-------------|
| `"PAT"` | scalar `i64` | The pattern token |
| `%unused` | `index` or `i64` | Named by the table, passed by no argument |

### Tokens

| Token | Width | Meaning |
|-------|:-----:|---------|
| `PAT_ALL` | 16 | Every lane |

## Expected Outputs

| Result | Type | Description |
|--------|------|-------------|
| `%mask` | `!pto.mask<b16>` | The predicate |
""",
    )
    assert _operands(got) == [("mask", "mask", "dst", "!pto.mask<b16>"), ("pat", "scalar", "scalar", "i64")]
    assert any("'unused': the page's C++ call passes no argument" in u for u in got.unplaced)


@pytest.mark.parametrize(
    ("ins", "roles"),
    [
        ("| `%src0` | `!pto.mask<G>` | One |\n| `%mask` | `!pto.mask<G>` | Lanes |", ["dst", "src", "mask"]),
        ("| `%mask` | `!pto.mask<G>` | Stored |", ["dst", "src"]),
    ],
    ids=["after a source: the predicate mask", "alone: a source"],
)
def test_an_input_predicate_named_mask(tmp_path: Path, ins: str, roles: list[str]) -> None:
    got = _read(
        tmp_path,
        "pnot.md",
        f"""# pto.pnot

## Inputs

| Operand | Type | Description |
|---------|------|-------------|
{ins}

## Expected Outputs

| Result | Type | Description |
|--------|------|-------------|
| `%dst` | `!pto.mask<G>` | Result |
""",
    )
    assert [o["role"] for o in got.spec["operands"]] == roles
