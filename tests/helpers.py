"""Helpers shared by the CLI and bad-spec tests."""

from __future__ import annotations

import difflib
import functools
import hashlib
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from ptogen.lower.views import ProjectView
    from ptogen.spec.load import SpecSet
    from ptogen.testing.manifest import Manifest

ROOT = Path(__file__).resolve().parents[1]
TLRELU = "specs/ops/tile_scalar_and_immediate/tlrelu.yaml"
T = TypeVar("T")

# Ops whose generated test plan has compile cases only, with the test that runs them instead.
NO_RUNTIME_CASES = {
    "tsync": "it orders work and computes nothing (tests/opkinds/test_sync.py runs it)",
    **{
        op: "a scalar builtin of the runtime (tests/opkinds/test_builtin.py runs it)"
        for op in ("set_flag", "wait_flag", "pipe_barrier", "mem_bar")
    },
    **{
        op: "a scalar builtin of the runtime (tests/runtime/test_vsim_predicate_algebra.py runs it)"
        for op in (
            *(f"{f}_{w}" for f in ("pset", "pge", "plt", "pintlv", "pdintlv") for w in ("b8", "b16", "b32")),
            *("ppack", "punpack", "pand", "por", "pxor", "pnot", "psel"),
            *("plds", "pld", "pldi", "psts", "pst", "psti", "pstu"),
        )
    },
    **{
        op: "a scalar builtin of the runtime (tests/runtime/test_cross_core.py runs it)"
        for op in (
            "get_buf",
            "rls_buf",
            "set_cross_core",
            "wait_flag_dev",
            "set_intra_block",
            "wait_intra_core",
        )
    },
    "tbroadcast": "its results are a group's tensors, not one operand (tests/runtime/test_comm.py runs it)",
    **{
        op: "a builtin of the vector register model (tests/runtime/test_vsim_loadstore.py runs it)"
        for op in (
            *("vlds", "vldas", "vldus", "vgather2", "vgather2_bc", "vsts", "vscatter"),
            *("vstus", "vstur", "vstas", "vstar", "vintlv", "vdintlv", "vsqz", "vpack"),
        )
    },
    **{
        op: "a builtin of the vector register model (tests/runtime/test_vsim_select.py runs it)"
        for op in ("vcmp", "vcmps", "vsel", "vselr", "vbr", "vdup")
    },
    **{
        op: "a builtin of the vector register model (tests/runtime/test_vsim_select.py runs it)"
        for op in ("vselrv2",)
    },
    **{
        op: "a builtin of the vector register model (tests/runtime/test_vsim_convert.py runs it)"
        for op in ("vcvt", "vtrc", "vci", "vbitcast", "pbitcast")
    },
    **{
        op: "a builtin of the vector register model (tests/runtime/test_vsim_loadstore.py runs it)"
        for op in ("vintlvv2", "vdintlvv2", "vperm", "vshift", "vslide", "vusqz", "vsunpack", "vzunpack")
    },
    **{
        op: "a builtin of the vector register model (tests/runtime/test_vsim_loadstore.py runs it)"
        for op in ("vldsx2", "vsld", "vsldb", "vgatherb", "vstsx2", "vsst", "vsstb", "vsta", "vstu")
    },
    # The DMA copies and registers, and the micro-instruction builtins: their spec examples run them
    # (tests/header/test_generated_header.py), and the per-core state in tests/runtime/test_cores.py.
    **{
        op: "a scalar builtin of the runtime (its spec examples and tests/runtime/test_cores.py run it)"
        for op in (
            *("mte_gm_ub", "mte_ub_gm", "mte_ub_ub", "mte_ub_l1"),
            *("set_loop_size_outtoub", "set_loop1_stride_outtoub", "set_loop2_stride_outtoub"),
            *("set_loop_size_ubtoout", "set_loop1_stride_ubtoout", "set_loop2_stride_ubtoout"),
            *("get_block_idx", "get_subblock_idx", "get_block_num", "get_subblock_num"),
            *("get_vms4_sr", "init_align"),
        )
    },
    **{
        op: "a builtin of the vector register model (tests/runtime/test_vsim_sfu.py runs it)"
        for op in ("vbitsort", "vmrgsort", "vsort32", "vtranspose", "vaddreluconv", "vmulconv")
    },
    # The IR forms C++ writes with the language itself: their verify files compile the spelling, and
    # their spec examples run it (tests/header/test_generated_header.py).
    **{
        op: "an IR form, no function (its spec examples run it)"
        for op in ("castptr", "addptr", "load_scalar", "store_scalar", "vecscope", "strict_vecscope")
    },
}


@functools.cache
def checkout_specs() -> SpecSet:
    """The checkout's specs, loaded once per test process (many modules read them at collection)."""
    from ptogen.spec.load import load_specs

    return load_specs(ROOT / "specs", ROOT)


@functools.cache
def checkout_project() -> ProjectView:
    """The view of the checkout's specs, made once per test process."""
    from ptogen.lower.views import ProjectView

    return ProjectView(checkout_specs())


@functools.cache
def checkout_manifest() -> Manifest:
    """The checkout's generated test manifest, read once per test process."""
    from ptogen.paths import Layout
    from ptogen.testing.runner import load_manifest

    return load_manifest(Layout.make(root=ROOT))


def quick_sample(items: list[T], key: Callable[[T], Hashable]) -> list[T]:
    """The cases of a check that runs once per op: the full tier (CI) takes every item, the quick tier
    (the README command) the first item of each key (one op of each kind and set, say), so that the
    local suite grows with the op kinds rather than with the ops."""
    from ptogen.testing.tiers import default_tier

    if default_tier() == "full":
        return items
    seen: set[Hashable] = set()
    return [item for item in items if not (key(item) in seen or seen.add(key(item)))]


def tree_hash(path: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(path.rglob("*")):
        if p.is_file():
            h.update(p.relative_to(path).as_posix().encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def tree_difference(actual: dict[str, str], expected: dict[str, str]) -> str:
    """'' when two trees (path -> text) are equal, else a short account: the paths only one has, the
    paths whose text differs, and the first such file's first differing lines. (A plain `==` of two
    whole trees makes pytest print tens of megabytes, which hides the difference.)"""
    if actual == expected:
        return ""
    only_actual = sorted(set(actual) - set(expected))
    only_expected = sorted(set(expected) - set(actual))
    changed = sorted(p for p in set(actual) & set(expected) if actual[p] != expected[p])
    lines = [
        f"{len(only_actual)} only in the actual tree: {only_actual[:8]}",
        f"{len(only_expected)} only in the expected tree: {only_expected[:8]}",
        f"{len(changed)} differ: {changed[:8]}",
    ]
    if changed:
        first = changed[0]
        diff = difflib.unified_diff(
            expected[first].splitlines(), actual[first].splitlines(), "expected", "actual", lineterm="", n=1
        )
        lines += [f"{first}:", *list(diff)[:40]]
    return "\n".join(lines)


def edit(project: Path, rel: str, old: str, new: str) -> int:
    """Replace `old` by `new` in a spec; returns the 1-based line of the edit."""
    path = project / rel
    text = path.read_text()
    assert old in text, old
    line = text[: text.index(old)].count("\n") + 1
    rewrite(path, text.replace(old, new, 1))
    return line


def rewrite(path: Path, text: str) -> None:
    """Replace a file of a project copy with `text`. Never write into it: the copy's generated files
    are hard links to the checkout's."""
    path.unlink()
    path.write_text(text)


def generated_pages() -> list[tuple[Path, str, Path]]:
    """(spec file, its op kind, page) for the generated pages of every op: its instruction-set page,
    and the reference-layout page of an op with an intrinsic (the comm TGATHER's under comm/)."""
    cases = []
    for op in checkout_project().ops:
        for rel in [op.doc_path, *([op.ref_doc_path] if op.intrinsic is not None else [])]:
            page = ROOT / "generated" / rel
            if page.is_file():
                cases.append((ROOT / op.path, op.spec.semantics.kind, page))
    return sorted(cases)
