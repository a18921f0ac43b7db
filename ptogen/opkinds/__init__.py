"""Op kinds: how an op iterates, is written as math, simulated, tested and checked against numpy.

The instruction set no longer says "tile or vector"; each spec names its kind in
`semantics.kind`, and the kind (a strategy object, `base.OpKind`) owns what differs between kinds,
through the contract of each consumer:
- what its specs may state and its spec checks (`spec/kindfacts.py`: `KindFacts`, data);
- how `ptogen import` recognises and reads its pages (`importer/contract.py`): the kind reads back
  what its own templates write;
- its iteration domain, index notation and backend calls (`lower/contract.py`);
- its test plan, calls and golden-case preparation (`testing/contract.py`); a planned case carries
  what its kernel needs around the call;
- which per-op files it renders (`outputs`) from the template folder `templates/opkinds/<name>/`.

A kind module imports only `base` and the shared layer (`ptogen/kindlib/`), never another kind.
Adding an op kind is one module here plus its templates and tests; see the contributor guide on the
documentation site, "Adding an op kind".
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from ..importer.contract import PageOp
from .base import OpKind

if TYPE_CHECKING:
    KINDS: dict[str, OpKind]  # `registry()`, by module attribute


@cache
def registry() -> dict[str, OpKind]:
    """Every op kind by name, in the order `recognise` breaks ties. Built on first use, so that the
    shared layer (ptogen/kindlib/), which the kind modules import, may import `opkinds.base` whichever
    of the two a program imports first."""
    from .barrier import Barrier
    from .bind import Bind
    from .builtin import Builtin, PredicateBuiltin
    from .comm import Comm
    from .convert import Convert
    from .debug_print import DebugPrint
    from .elementwise import Elementwise
    from .fillpad import FillPad
    from .gather import BlockGather, Gather, Scatter
    from .generate import Generate
    from .hint import Hint
    from .histogram import Histogram
    from .img2col import Img2col, Img2colConfig
    from .indexed import Indexed
    from .ir_form import IrForm
    from .lane import VectorLane
    from .lane_reduce import LaneReduce
    from .matmul import Matmul
    from .move import Move
    from .partial import Partial
    from .pipe import Pipe
    from .predicate import Predicate
    from .quant import Quant
    from .random import Random
    from .remap import Remap
    from .reshape import Reshape
    from .sort import BlockSort, MergeSort
    from .sync import Sync
    from .tile_reduce import TileReduce
    from .transfer import Transfer
    from .transpose import Transpose
    from .vconvert import VectorConvert
    from .view import View
    from .vmem import VectorMemory
    from .vmove import VectorMove
    from .vselect import VectorSelect
    from .vsfu import VectorSfu

    return {
        k.name: k
        for k in (
            Elementwise(),
            Convert(),
            Predicate(),
            VectorLane(),
            TileReduce(),
            Pipe(),  # before Barrier and Transfer: its domain paragraph outranks a pipe page's operands
            Comm(),  # before Transfer: its pages' paragraph outranks their GlobalTensor operands
            Barrier(),  # before Transfer: a workspace and a count but no tile is a barrier's page
            Transfer(),
            Indexed(),
            View(),
            Hint(),
            Bind(),
            Sync(),
            Move(),
            Transpose(),
            Matmul(),
            FillPad(),
            Partial(),
            Generate(),
            BlockSort(),
            MergeSort(),
            Gather(),
            BlockGather(),
            Scatter(),
            Histogram(),
            Quant(),
            Remap(),
            Reshape(),
            Random(),
            DebugPrint(),
            Img2col(),
            Img2colConfig(),
            IrForm(),  # before Builtin: its domain paragraph outranks a scalar page's operands
            Builtin(),
            LaneReduce(),
            VectorMemory(),
            VectorMove(),
            PredicateBuiltin(),
            VectorSelect(),
            VectorConvert(),
            VectorSfu(),
        )
    }


def __getattr__(name: str) -> Any:
    if name == "KINDS":
        return registry()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def kind(name: str) -> OpKind:
    return registry()[name]


def recognise(page: PageOp) -> str | None:
    """The name of the kind that recognises a page with the most specific evidence (on a tie, the
    first in `KINDS`), or None: no kind recognises it."""
    best: tuple[int, str] | None = None
    for name, k in registry().items():
        score = k.recognise(page)
        if score is not None and (best is None or score > best[0]):
            best = (score, name)
    return None if best is None else best[1]


__all__ = ["KINDS", "OpKind", "PageOp", "kind", "recognise", "registry"]
