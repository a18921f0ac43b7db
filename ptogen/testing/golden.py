"""Test inputs and golden checks for the generated runtime kernels.

Inputs are deterministic (seeded from the case's name) and always contain the special values
of the element type. Expected values come from the op's generated Python reference, evaluated
in the compute type and rounded to the element type exactly as the simulator does.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import ml_dtypes
import numpy as np

if TYPE_CHECKING:
    from .runner import Job, Outcome, Runner

Check = Callable[[Path], "Outcome"]


def np_dtype(numpy_name: str) -> np.dtype:
    if numpy_name == "bfloat16":
        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(numpy_name)


def compute_dtype(storage: np.dtype) -> np.dtype:
    """The simulator computes half and bfloat16_t in float."""
    if storage in (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)):
        return np.dtype(np.float32)
    return storage


def _is_float(dt: np.dtype) -> bool:
    return dt.kind == "f" or dt == np.dtype(ml_dtypes.bfloat16)


def special_values(dt: np.dtype) -> np.ndarray:
    if _is_float(dt):
        finfo = ml_dtypes.finfo(dt) if dt == np.dtype(ml_dtypes.bfloat16) else np.finfo(dt)
        vals = [
            0.0,
            -0.0,
            np.nan,
            np.inf,
            -np.inf,
            1.0,
            -1.0,
            0.5,
            -2.5,
            float(finfo.max),
            -float(finfo.max),
            float(finfo.smallest_subnormal),
            -float(finfo.smallest_normal),
            3.0,
            -0.75,
        ]
        return np.array(vals, dtype=np.float64).astype(dt)
    info = np.iinfo(dt)
    vals = [0, 1, int(info.max), int(info.min), 2, int(info.max) - 1, 7]
    if info.min < 0:
        vals += [-1, -2, int(info.min) + 1, -7]
    return np.array(vals, dtype=object).astype(dt)


def random_values(dt: np.dtype, count: int, seed_text: str) -> np.ndarray:
    rng = np.random.default_rng(zlib.crc32(seed_text.encode()))
    if _is_float(dt):
        vals = rng.uniform(-10.0, 10.0, count).astype(np.float32)
        return vals.astype(dt)
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, count, endpoint=True, dtype=dt)


def inputs(dt: np.dtype, count: int, seed_text: str) -> np.ndarray:
    vals = random_values(dt, count, seed_text)
    sp = special_values(dt)
    n = min(len(sp), count)
    vals[:n] = sp[:n]
    return vals


def logical(flat: np.ndarray, rows: int, cols: int, layout: str) -> np.ndarray:
    """(rows, cols) view of a tile's storage in its layout."""
    return flat.reshape(rows, cols) if layout == "RowMajor" else flat.reshape(cols, rows).T


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.dtype(f"u{a.dtype.itemsize}"))


def _ordered(a: np.ndarray) -> np.ndarray:
    """Map float bit patterns to integers whose order is the order of the values (for ULPs)."""
    bits = _bits(a).astype(np.int64)
    sign = 1 << (a.dtype.itemsize * 8 - 1)
    return np.where(bits & sign, sign - bits, bits + 0)


def compare(got: np.ndarray, want: np.ndarray, tolerance: dict[str, Any]) -> np.ndarray:
    """Boolean mask of mismatching elements."""
    if not _is_float(got.dtype):
        return _bits(got) != _bits(want)
    g64, w64 = got.astype(np.float64), want.astype(np.float64)
    both_nan = np.isnan(g64) & np.isnan(w64)
    if tolerance["kind"] == "exact":
        bad = _bits(got) != _bits(want)
    else:
        same_inf = np.isinf(w64) & (g64 == w64)
        finite = np.isfinite(g64) & np.isfinite(w64)
        within = finite & (np.abs(_ordered(got) - _ordered(want)) <= int(tolerance["ulp"]))
        bad = ~(within | same_inf)
    return bad & ~both_nan


def _describe(bad: np.ndarray, got: np.ndarray, want: np.ndarray, what: str, extra: str = "") -> str:
    idx = np.argwhere(bad)
    first = tuple(int(i) for i in idx[0])
    return (
        f"{int(bad.sum())} {what} element(s) differ; first at {first}: got {got[first]!r}, "
        f"want {want[first]!r}{extra}"
    )


def narrow(values: np.ndarray, storage: np.dtype) -> np.ndarray:
    """Round compute values to the element type as the simulator does (float to int saturates, NaN -> 0)."""
    values = np.asarray(values)
    if not _is_float(storage) and _is_float(values.dtype):
        info = np.iinfo(storage)
        wide = np.nan_to_num(
            values.astype(np.float64), nan=0.0, posinf=float(info.max), neginf=float(info.min)
        )
        clipped = np.clip(wide, float(info.min), float(info.max))
        out = np.empty(clipped.shape, dtype=storage)
        big = clipped >= float(info.max)
        out[...] = np.where(big, 0, clipped).astype(storage)  # float(max) of 64-bit types is out of range
        out[big] = info.max
        return out
    return values.astype(storage)


def prepare_tile_cases(runner: Runner, job: Job, data: Path) -> list[Check]:
    from .runner import Outcome

    op = runner.manifest["ops"][job.op]
    ref = runner.reference(job.op)
    types = {n: np_dtype(runner.manifest["dtypes"][d]["numpy"]) for n, d in job.entry["dtypes"].items()}
    domain = op["domain"]
    storage = types[domain]
    cdt = compute_dtype(types[op["compute"]])
    checks: list[Check] = []
    for case in job.entry["cases"]:
        k = case["index"]
        arrays: dict[str, np.ndarray] = {}
        for name, t in case["tiles"].items():
            count = t["rows"] * t["cols"]
            arrays[name] = inputs(types[name], count, f"{job.op}/{job.entry['kernel']}/{k}/{name}")
            arrays[name].tofile(data / f"c{k}_{name}.bin")
        scalars: dict[str, Any] = {}
        for name, value in case["scalars"].items():
            st = types[name]
            s = np.array([value], dtype=np.float64 if _is_float(st) else np.int64).astype(st)
            s.tofile(data / f"c{k}_{name}.bin")
            scalars[name] = s.reshape(()).astype(cdt)
        scalars.update(case.get("attrs", {}))
        t = case["tiles"][domain]
        vr, vc = t["valid_rows"], t["valid_cols"]
        args = []
        for name in op["inputs"]:
            if name in arrays:
                ti = case["tiles"][name]
                view = logical(arrays[name], ti["rows"], ti["cols"], ti["layout"])[:vr, :vc]
                args.append(view.astype(cdt))
            else:
                args.append(scalars[name])
        with np.errstate(all="ignore"):
            want = narrow(np.asarray(ref.reference(cdt.type, *args)), storage)
        before = logical(arrays[domain].copy(), t["rows"], t["cols"], t["layout"])
        label = f"{job.label} case {k} ({case['label']})"

        def check(
            data_dir: Path,
            k: int = k,
            t: dict[str, Any] = t,
            want: np.ndarray = want,
            before: np.ndarray = before,
            label: str = label,
            scalars: dict[str, Any] = scalars,
            vr: int = vr,
            vc: int = vc,
        ) -> Outcome:
            out_file = data_dir / f"c{k}_{domain}.out"
            got_flat = np.fromfile(out_file, dtype=storage)
            got = logical(got_flat, t["rows"], t["cols"], t["layout"])
            bad = compare(got[:vr, :vc], want, op["tolerance"])
            if bad.any():
                return Outcome(
                    "fail", label, _describe(bad, got[:vr, :vc], want, "valid", f"; scalars {scalars}")
                )
            outside = np.ones(got.shape, dtype=bool)
            outside[:vr, :vc] = False
            changed = outside & (_bits(got) != _bits(before))
            if changed.any():
                return Outcome("fail", label, _describe(changed, got, before, "outside-the-valid-region"))
            return Outcome("pass", label)

        checks.append(check)
    return checks


MASKS = {
    "all lanes": lambda n: np.ones(n, dtype=bool),
    "first 5 lanes": lambda n: np.arange(n) < 5,
    "alternate lanes": lambda n: np.arange(n) % 2 == 0,
    "no lanes": lambda n: np.zeros(n, dtype=bool),
}


def prepare_vector_cases(runner: Runner, job: Job, data: Path) -> list[Check]:
    from .runner import Outcome

    op = runner.manifest["ops"][job.op]
    ref = runner.reference(job.op)
    storage = np_dtype(runner.manifest["dtypes"][job.entry["dtype"]]["numpy"])
    cdt = compute_dtype(storage)
    lanes = job.entry["lanes"]
    checks: list[Check] = []
    k = 0
    for mask_name in job.entry["masks"]:
        predicate = MASKS[mask_name](lanes)
        for value in job.entry["scalars"]:
            vals: dict[str, np.ndarray] = {}
            seed = f"{job.op}/{job.entry['kernel']}/{k}"
            for name, kind in op["operands"].items():
                if op["roles"][name] == "dst":
                    continue
                if kind == "vreg":
                    vals[name] = inputs(storage, lanes, f"{seed}/{name}")
                    vals[name].tofile(data / f"c{k}_{name}.bin")
                elif kind == "scalar":
                    s = np.array([value], dtype=np.float64 if _is_float(storage) else np.int64).astype(
                        storage
                    )
                    s.tofile(data / f"c{k}_{name}.bin")
                    vals[name] = s.reshape(())
                elif kind == "mask":
                    # The predicate follows the case's pattern; other masks (carry-in) are random bits.
                    bits = (
                        predicate
                        if op["roles"][name] == "mask"
                        else random_values(np.dtype(np.uint8), lanes, f"{seed}/{name}") % 2 == 1
                    )
                    bits.astype(np.uint8).tofile(data / f"c{k}_{name}.bin")
                    vals[name] = bits.astype(np.uint8)
            args = [np.asarray(vals[n]).astype(cdt) for n in op["inputs"]]
            wants = {}
            for i, out in enumerate(op["outputs"]):
                fn = ref.reference if i == 0 else getattr(ref, f"reference_{out}")
                kind = op["operands"][out]
                out_type = storage if kind == "vreg" else np.dtype(np.uint8)
                with np.errstate(all="ignore"):
                    active = np.asarray(fn(cdt.type, *args))
                active = narrow(active, out_type) if kind == "vreg" else (active != 0).astype(np.uint8)
                wants[out] = (
                    np.where(predicate, active, np.zeros(lanes, dtype=out_type)).astype(out_type),
                    out_type,
                )
            label = f"{job.label} case {k} ({mask_name}, scalar {value})"

            def check(
                data_dir: Path, k: int = k, wants: dict[str, Any] = wants, label: str = label
            ) -> Outcome:
                for out, (want, out_type) in wants.items():
                    got = np.fromfile(data_dir / f"c{k}_{out}.out", dtype=out_type)
                    bad = compare(got, want, op["tolerance"])
                    if bad.any():
                        return Outcome("fail", label, _describe(bad, got, want, f"{out} lane"))
                return Outcome("pass", label)

            checks.append(check)
            k += 1
    return checks
