"""TCVT's conversion: the golden model on hand-worked values, and the convert op kind's test plan."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

from ptogen.opkinds import KINDS
from ptogen.testing.refconvert import convert_value

from ..helpers import ROOT

F32, F16, BF16 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)
I8, U8, I16, I32, U16 = (np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.int32, np.uint16))


def cv(value, src, dst, mode="CAST_RINT", saturate=True):
    return convert_value(np.array([value], dtype=src)[0], src, dst, mode, saturate)


@pytest.mark.parametrize(
    ("value", "dst", "saturate", "want"),
    [
        (300.7, I8, True, 127),
        (-1e9, I8, True, -128),
        (float("nan"), I32, True, 0),
        (float("inf"), I16, True, 32767),
        (3e9, I32, False, -(2**31)),  # outside int32: x86's integer indefinite
        (40000.4, I16, False, 40000 - 65536),  # inside int32, wrapped to 16 bits
        (-3.0, U8, False, 253),
        (5e9, U8, False, 5_000_000_000 % 256),  # uint8_t goes through 64 bits
        (float("nan"), I16, False, 0),  # -2^31 wrapped to 16 bits
    ],
)
def test_float_to_integer(value, dst, saturate, want):
    assert int(cv(value, F32, dst, saturate=saturate)) == want


@pytest.mark.parametrize(
    ("mode", "value", "want"),
    [
        ("CAST_RINT", 2.5, 2),
        ("CAST_ROUND", 2.5, 3),
        ("CAST_ROUND", -2.5, -3),
        ("CAST_FLOOR", -0.5, -1),
        ("CAST_CEIL", 0.25, 1),
        ("CAST_TRUNC", -1.75, -1),
        ("CAST_ODD", 2.25, 3),  # inexact: the odd neighbour
        ("CAST_ODD", 3.75, 3),
        ("CAST_ODD", -2.5, -3),
        ("CAST_ODD", 4.0, 4),  # exact: kept
        ("CAST_NONE", 2.75, 2),  # the conversion drops the fraction
        ("CAST_NONE", -2.75, -2),
    ],
)
def test_rounding_to_integer(mode, value, want):
    assert int(cv(value, F32, I32, mode)) == want


TIE = 1.0 + 2.0**-11  # halfway between 1 and the next half, 1 + 2^-10
NEXT = 1.0 + 2.0**-10


@pytest.mark.parametrize(
    ("mode", "value", "want"),
    [
        ("CAST_RINT", TIE, 1.0),  # tie to the even neighbour
        ("CAST_ROUND", TIE, NEXT),  # tie away from zero
        ("CAST_ROUND", -TIE, -NEXT),
        ("CAST_CEIL", 1.0001, NEXT),
        ("CAST_FLOOR", -1.0001, -NEXT),
        ("CAST_TRUNC", -1.0009, -1.0),
        ("CAST_RINT", 1.0 + 3 * 2.0**-11, 1.0 + 2 * 2.0**-10),  # tie, the upper one is even
        ("CAST_ODD", 1.0001, NEXT),  # inexact: the neighbour with an odd last bit
        ("CAST_ODD", 1.0 + 2.0**-10 + 2.0**-12, NEXT),
        ("CAST_ODD", -1.0001, -NEXT),
        ("CAST_NONE", TIE, 1.0),  # the conversion's own rounding: nearest even
        ("CAST_NONE", 1.0 + 3 * 2.0**-11, 1.0 + 2 * 2.0**-10),
        ("CAST_NONE", 1.0007, NEXT),
    ],
)
def test_float_to_narrower_float(mode, value, want):
    assert float(cv(value, F32, F16, mode)) == want


def test_overflow_to_half():
    assert math.isinf(float(cv(70000.0, F32, F16, saturate=False)))
    assert float(cv(70000.0, F32, F16, "CAST_FLOOR", saturate=False)) == 65504.0
    assert float(cv(70000.0, F32, F16, saturate=True)) == 65504.0
    assert float(cv(float("-inf"), F32, F16, saturate=True)) == -65504.0
    assert math.isinf(float(cv(float("inf"), F32, F32, saturate=False)))
    assert math.isnan(float(cv(float("nan"), F32, BF16, saturate=True)))
    assert math.copysign(1.0, float(cv(-0.0, F32, F16))) < 0


@pytest.mark.parametrize(
    ("mode", "want"),
    [("CAST_RINT", 16777216), ("CAST_ROUND", 16777218), ("CAST_CEIL", 16777218), ("CAST_FLOOR", 16777216)],
)
def test_integer_to_float(mode, want):
    assert float(cv(16777217, I32, F32, mode)) == want  # 2^24 + 1 lies halfway between two floats


def test_integer_to_integer():
    assert int(cv(40000, I32, I16, saturate=True)) == 32767
    assert int(cv(40000, I32, I16, saturate=False)) == 40000 - 65536
    assert int(cv(-5, I32, U16, saturate=True)) == 0
    assert int(cv(-5, I32, U16, saturate=False)) == 65531
    assert int(cv(65535, U16, I32, saturate=False)) == 65535


def test_convert_kind_accepts_only_a_rounding_applied_to_a_source():
    from ptogen.spec.expr import parse

    kind = KINDS["convert"]
    assert kind.check_expr(parse("mode(src)", {"src"}, {"mode": 1})) == []
    assert kind.check_expr(parse("src + src", {"src"}, {})) != []


def test_plan_covers_every_pair_the_cpu_profile_accepts():
    from ptogen.lower.views import ProjectView
    from ptogen.spec.load import load_specs
    from ptogen.testing.plan import plan_op

    project = ProjectView(load_specs(ROOT / "specs", ROOT))
    op = next(o for o in project.ops if o.name == "TCVT")
    tests = plan_op(project, op)
    # Every pair of the generated test plan's types; the 4-bit ones are tests/runtime/test_packed_types.py's,
    # and hifloat8_t and the 8-bit MX floats are moved as bytes only.
    vocab = [d.name for d in project.targets.dtypes if d.test_matrix]
    assert len(vocab) == len(project.targets.dtypes) - 7
    groups = {(k.dtypes["src"], k.dtypes["dst"]) for k in tests.runtime if "CPU" in k.profiles}
    assert groups == {(s, d) for s in vocab for d in vocab}
    a2a3 = {(k.dtypes["src"], k.dtypes["dst"]) for k in tests.runtime if "A2A3" in k.profiles}
    assert ("uint16_t", "float") not in a2a3 and ("half", "uint8_t") in a2a3
