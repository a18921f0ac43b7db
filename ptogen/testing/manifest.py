"""The test manifest: what `ptogen gen` tells `ptogen test` about each op's generated tests.

One definition shared by the writer (testing/plan.py, through `generated/tests/**/manifest.json`),
the runner (testing/runner.py) and the op kinds' golden-case preparation (`prepare_cases`, which
reads it through `golden.GoldenContext`). Each record converts to the JSON written on disk
(`to_json`, keys sorted by the writer) and back (`from_json`); optional facts are left out of the
JSON when absent, as they always were.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Where (under the output directory) the header every test kernel includes is, kernel_io.hpp: a
# directory of its own, which the kernels' compiles put on their include path.
TEST_SUPPORT = "tests/common"


@dataclass(frozen=True)
class TileShape:
    """A tile of a runtime case: its shape, valid region and layouts."""

    rows: int
    cols: int
    valid_rows: int
    valid_cols: int
    layout: str
    slayout: str | None = None  # inner (fractal box) layout of a boxed tile
    pad: str | None = None  # PadValue; None: Null
    fractal: int | None = None  # bytes of one box of a boxed tile; None: 512
    conv: list[Any] | None = None  # a ConvTile: [Layout, extent, ...] (rows x cols its element count)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rows": self.rows,
            "cols": self.cols,
            "valid_rows": self.valid_rows,
            "valid_cols": self.valid_cols,
            "layout": self.layout,
        }
        if self.slayout:
            out["slayout"] = self.slayout
        if self.pad:
            out["pad"] = self.pad
        if self.fractal:
            out["fractal"] = self.fractal
        if self.conv:
            out["conv"] = list(self.conv)
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> TileShape:
        return cls(
            d["rows"],
            d["cols"],
            d["valid_rows"],
            d["valid_cols"],
            d["layout"],
            d.get("slayout"),
            d.get("pad"),
            d.get("fractal"),
            d.get("conv"),
        )


@dataclass(frozen=True)
class GlobalShape:
    """A GlobalTensor of a runtime case over its host buffer (see `plan.GlobalDecl`)."""

    rows: int
    cols: int
    ld: int
    layout: str
    shape: list[int]
    strides: list[int]
    size: int

    def to_json(self) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "cols": self.cols,
            "ld": self.ld,
            "layout": self.layout,
            "shape": self.shape,
            "strides": self.strides,
            "size": self.size,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> GlobalShape:
        return cls(
            d["rows"], d["cols"], d["ld"], d["layout"], list(d["shape"]), list(d["strides"]), d["size"]
        )


@dataclass(frozen=True)
class CaseEntry:
    """One runtime case of a group."""

    index: int
    label: str
    scalars: dict[str, float | int]
    attrs: dict[str, str]  # the kind's own facts of the case (an index layout, an atomic mode)
    tiles: dict[str, TileShape]
    globals: dict[str, GlobalShape] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "index": self.index,
            "label": self.label,
            "scalars": self.scalars,
            "attrs": self.attrs,
            "tiles": {n: t.to_json() for n, t in self.tiles.items()},
        }
        if self.globals:
            out["globals"] = {n: g.to_json() for n, g in self.globals.items()}
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> CaseEntry:
        return cls(
            d["index"],
            d["label"],
            dict(d["scalars"]),
            dict(d["attrs"]),
            {n: TileShape.from_json(t) for n, t in d["tiles"].items()},
            {n: GlobalShape.from_json(g) for n, g in d.get("globals", {}).items()},
        )


@dataclass(frozen=True)
class RuntimeGroup:
    """A runtime group: one assignment of element types, its profiles and cases."""

    group: str
    dtypes: dict[str, str]  # operand -> element type
    profiles: list[str]
    cases: list[CaseEntry]
    ranges: dict[str, tuple[float, float]] = field(default_factory=dict)  # input data kept within

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"group": self.group, "dtypes": self.dtypes, "profiles": self.profiles}
        if self.ranges:
            out["ranges"] = {n: list(r) for n, r in self.ranges.items()}
        out["cases"] = [c.to_json() for c in self.cases]
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> RuntimeGroup:
        return cls(
            d["group"],
            dict(d["dtypes"]),
            list(d["profiles"]),
            [CaseEntry.from_json(c) for c in d["cases"]],
            {n: (r[0], r[1]) for n, r in d.get("ranges", {}).items()},
        )


@dataclass(frozen=True)
class VectorGroup:
    """A vector op's group: one element type, every mask pattern with every scalar."""

    group: str
    first: int  # global id of its first case; masks x scalars cases follow
    dtype: str
    lanes: int
    profiles: list[str]
    masks: list[str]
    scalars: list[float | int]

    def to_json(self) -> dict[str, Any]:
        return {
            "group": self.group,
            "first": self.first,
            "dtype": self.dtype,
            "lanes": self.lanes,
            "profiles": self.profiles,
            "masks": self.masks,
            "scalars": self.scalars,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> VectorGroup:
        return cls(
            d["group"],
            d["first"],
            d["dtype"],
            d["lanes"],
            list(d["profiles"]),
            list(d["masks"]),
            list(d["scalars"]),
        )


@dataclass(frozen=True)
class CompileEntry:
    """A compile case: a kernel that must compile (the legal twin) or fail with `messages`."""

    profile: str
    case: str
    rule: str
    must_fail: bool
    messages: list[str]

    def to_json(self) -> dict[str, Any]:
        return {
            "profile": self.profile,
            "case": self.case,
            "rule": self.rule,
            "must_fail": self.must_fail,
            "messages": self.messages,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> CompileEntry:
        return cls(d["profile"], d["case"], d["rule"], d["must_fail"], list(d["messages"]))


@dataclass(frozen=True)
class RuntimeFailEntry:
    """A runtime-fail case: the cases executable stops with `message` (a rule that warns: runs to
    completion after printing it)."""

    profile: str
    case: str
    rule: str
    message: str
    stops: bool = True

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "profile": self.profile,
            "case": self.case,
            "rule": self.rule,
            "message": self.message,
        }
        return out if self.stops else {**out, "stops": False}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> RuntimeFailEntry:
        return cls(d["profile"], d["case"], d["rule"], d["message"], d.get("stops", True))


@dataclass(frozen=True)
class Tolerance:
    kind: str
    ulp: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "ulp": self.ulp}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Tolerance:
        return cls(d["kind"], d["ulp"])


@dataclass(frozen=True)
class ValueForm:
    """An arg-reduction's overload that also writes the picked source values to `output`."""

    index: int
    output: str

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "output": self.output}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ValueForm:
        return cls(d["index"], d["output"])


@dataclass(frozen=True)
class OpManifest:
    """What the runner needs to build inputs, run the executables and judge results for one op."""

    mnemonic: str
    cpp: str  # the C++ name
    spec: str  # the spec file
    kind: str  # the op kind (opkinds.KINDS)
    reference: str  # the generated numpy reference
    tolerance: Tolerance
    domain: str
    forms: list[int]  # overloads judged against reference_f<index>
    packed: list[str]  # packed predicate tiles
    streams: list[str]
    region: str  # the tile whose valid region the op iterates
    value_forms: list[ValueForm]
    source: str  # the tile whose valid region the op walks
    axis: int | None  # the axis a reduction folds over
    compute: str  # the operand whose element type the math runs in
    inputs: list[str]  # operands the element expressions read
    operands: dict[str, str]  # operand -> kind
    roles: dict[str, str]  # operand -> role
    outputs: list[str]
    inactive_lanes: str | None
    executable: str | None  # the cases executable's source
    verify: str | None  # the compile-time rules' translation unit
    runtime: list[RuntimeGroup]
    vector: list[VectorGroup]
    compile: list[CompileEntry]
    runtime_fail: list[RuntimeFailEntry]
    extra: dict[str, Any] = field(default_factory=dict)  # the op kind's own facts (`manifest_extra`)

    def to_json(self) -> dict[str, Any]:
        return {
            "mnemonic": self.mnemonic,
            "cpp": self.cpp,
            "spec": self.spec,
            "kind": self.kind,
            "reference": self.reference,
            "tolerance": self.tolerance.to_json(),
            "domain": self.domain,
            "forms": self.forms,
            "packed": self.packed,
            "streams": self.streams,
            "region": self.region,
            "value_forms": [f.to_json() for f in self.value_forms],
            "source": self.source,
            "axis": self.axis,
            "compute": self.compute,
            "inputs": self.inputs,
            "operands": self.operands,
            "roles": self.roles,
            "outputs": self.outputs,
            "inactive_lanes": self.inactive_lanes,
            "executable": self.executable,
            "verify": self.verify,
            "runtime": [g.to_json() for g in self.runtime],
            "vector": [g.to_json() for g in self.vector],
            "compile": [c.to_json() for c in self.compile],
            "runtime_fail": [c.to_json() for c in self.runtime_fail],
            **self.extra,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> OpManifest:
        known = {f for f in cls.__dataclass_fields__ if f != "extra"}
        return cls(
            mnemonic=d["mnemonic"],
            cpp=d["cpp"],
            spec=d["spec"],
            kind=d["kind"],
            reference=d["reference"],
            tolerance=Tolerance.from_json(d["tolerance"]),
            domain=d["domain"],
            forms=list(d["forms"]),
            packed=list(d["packed"]),
            streams=list(d["streams"]),
            region=d["region"],
            value_forms=[ValueForm.from_json(f) for f in d["value_forms"]],
            source=d["source"],
            axis=d["axis"],
            compute=d["compute"],
            inputs=list(d["inputs"]),
            operands=dict(d["operands"]),
            roles=dict(d["roles"]),
            outputs=list(d["outputs"]),
            inactive_lanes=d["inactive_lanes"],
            executable=d["executable"],
            verify=d["verify"],
            runtime=[RuntimeGroup.from_json(g) for g in d["runtime"]],
            vector=[VectorGroup.from_json(g) for g in d["vector"]],
            compile=[CompileEntry.from_json(c) for c in d["compile"]],
            runtime_fail=[RuntimeFailEntry.from_json(c) for c in d["runtime_fail"]],
            extra={k: v for k, v in d.items() if k not in known},
        )


@dataclass(frozen=True)
class DTypeInfo:
    numpy: str  # numpy's name of the type ("bfloat16": ml_dtypes')
    kind: str
    bits: int

    def to_json(self) -> dict[str, Any]:
        return {"numpy": self.numpy, "kind": self.kind, "bits": self.bits}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> DTypeInfo:
        return cls(d["numpy"], d["kind"], d["bits"])


@dataclass(frozen=True)
class ProjectManifest:
    """generated/tests/manifest.json: the profiles, the dtype table and where each op's manifest is."""

    profiles: list[str]
    dtypes: dict[str, DTypeInfo]
    ops: dict[str, str]  # op (short name) -> its manifest, relative to the output directory

    def to_json(self) -> dict[str, Any]:
        return {
            "profiles": self.profiles,
            "dtypes": {n: d.to_json() for n, d in self.dtypes.items()},
            "ops": self.ops,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ProjectManifest:
        return cls(
            list(d["profiles"]), {n: DTypeInfo.from_json(x) for n, x in d["dtypes"].items()}, dict(d["ops"])
        )


@dataclass(frozen=True)
class Manifest:
    """The whole manifest as the runner loads it: the project's, each op's in place of its path."""

    profiles: list[str]
    dtypes: dict[str, DTypeInfo]
    ops: dict[str, OpManifest]
