"""Imports point one way: no cycle between ptogen's modules or between its layers, counting the
imports a type checker sees (`if TYPE_CHECKING:`) and the ones inside functions.

The graph is read from the source with `ast` (nothing is imported), so a late or type-only import
cannot hide a cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "ptogen"

# The layers, lowest first. A module belongs to the layer of the longest prefix that names it;
# a layer may import only itself and the layers before it. `rule_api` and `kind_api` hold the
# interfaces (protocols) that the rule kinds and the op kinds are handed, below both.
# `ptogen.spec` is the spec's vocabulary (checked field types, the YAML loader, the expression
# language); the spec model holds rules, so
# it sits above `ptogen.rules`, and loading a spec asks its rule and op kinds, so `ptogen.spec.load`
# sits above them. The test planner's data types and golden helpers sit below the op kinds, which
# build tests with them; the runner, which runs what the op kinds prepare, sits above them.
LAYERS = [
    "ptogen.rule_api",
    "ptogen.spec",
    "ptogen.rules",
    "ptogen.spec.model",
    # Resolution against op classes, named sets and profiles (reads the rule kinds' shorthands).
    "ptogen.spec.resolve",
    "ptogen.spec.classes",
    "ptogen.spec.factor",
    "ptogen.spec.show",
    "ptogen.kind_api",
    "ptogen.testing",
    # The contracts the spec checks, the import and the lowering own with the op kinds, below the
    # kinds' base (the test planner's is in ptogen.testing).
    "ptogen.spec.kindfacts",
    "ptogen.importer.contract",
    "ptogen.lower.contract",
    "ptogen.opkinds.base",
    # What op kinds share (their families' bases among it), below the kinds.
    "ptogen.kindlib",
    "ptogen.opkinds",
    "ptogen.spec.load",
    "ptogen.lower",
    "ptogen.testing.runner",
    "ptogen.emit",
    "ptogen.importer",
]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    """The ptogen module an imported name lives in (a submodule, else its package)."""
    while name:
        if name in known:
            return name
        name = name.rpartition(".")[0]
    return None


def imports_of(module: str, path: Path, known: dict[str, Path]) -> set[str]:
    """Every ptogen module `module` imports, anywhere in its body."""
    tree = ast.parse(path.read_text(), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            targets = [f"{prefix}.{a.name}" for a in node.names]  # a submodule, or a name in prefix
        else:
            continue
        for t in targets:
            found = _resolve(t, known)
            if found is not None and found != module and found.startswith("ptogen"):
                out.add(found)
    return out


def graph() -> dict[str, set[str]]:
    known = modules()
    return {m: imports_of(m, p, known) for m, p in known.items()}


def layer_of(module: str) -> str | None:
    best = None
    for layer in LAYERS:
        if (module == layer or module.startswith(layer + ".")) and (best is None or len(layer) > len(best)):
            best = layer
    return best


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each strongly connected component of more than one node (Tarjan's
    algorithm), as a path that returns to its start; `components` lists their members."""
    return [_cycle_in(c, edges) for c in components(edges)]


def components(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node, each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def _cycle_in(comp: list[str], edges: dict[str, set[str]]) -> list[str]:
    """One cycle through the component's first node, as a path that returns to it."""
    members = set(comp)
    start = comp[0]
    paths = {start: [start]}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges.get(v, ()) & members):
            if w == start:
                return [*paths[v], start]
            if w not in paths:
                paths[w] = [*paths[v], w]
                queue.append(w)
    return comp


def _show(edges: dict[str, set[str]]) -> str:
    return "\n".join(
        f"{' -> '.join(_cycle_in(c, edges))}  (in a cycle: {', '.join(c)})" for c in components(edges)
    )


def test_no_module_cycle() -> None:
    edges = graph()
    assert not components(edges), "import cycles between modules:\n" + _show(edges)


def test_no_layer_cycle() -> None:
    layered: dict[str, set[str]] = {}
    for module, targets in graph().items():
        src = layer_of(module)
        if src is None:
            continue
        for t in targets:
            dst = layer_of(t)
            if dst is not None and dst != src:
                layered.setdefault(src, set()).add(dst)
    assert not components(layered), "import cycles between layers:\n" + _show(layered)


def test_layer_order() -> None:
    """A module imports only modules of its own layer or of the layers before it."""
    wrong = []
    for module, targets in sorted(graph().items()):
        src = layer_of(module)
        if src is None:
            continue
        for t in sorted(targets):
            dst = layer_of(t)
            if dst is not None and LAYERS.index(dst) > LAYERS.index(src):
                wrong.append(f"{module} ({src}) imports {t} ({dst})")
    assert not wrong, "imports against the layer order:\n" + "\n".join(wrong)


def test_every_layer_exists() -> None:
    known = modules()
    assert [layer for layer in LAYERS if layer not in known] == []


def test_the_graph_sees_type_only_and_local_imports(tmp_path: Path) -> None:
    pkg = tmp_path / "ptogen"
    (pkg / "a").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a" / "__init__.py").write_text("")
    (pkg / "a" / "x.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..b import y\n"
    )
    (pkg / "b.py").write_text("def f():\n    from .a import x\n    return x\n")
    known = {_module_name_in(p, tmp_path): p for p in pkg.rglob("*.py")}
    edges = {m: imports_of(m, p, known) for m, p in known.items()}
    assert edges["ptogen.a.x"] == {"ptogen.b"}
    assert edges["ptogen.b"] == {"ptogen.a.x"}
    assert cycles(edges) == [["ptogen.a.x", "ptogen.b", "ptogen.a.x"]]


def _module_name_in(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)
