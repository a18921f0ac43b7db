"""The plug-in contracts stay closed: a new rule kind is one module in ptogen/rules/, a new op kind
one module in ptogen/opkinds/ (plus its templates), and nothing else has to learn about either.

- Code outside ptogen/rules/ never switches on a rule's kind or class: it asks the rule's hooks
  (`RuleBase`'s, and those of the parts in ptogen/rules/parts.py through `part(rule, P)`).
- Code outside ptogen/opkinds/ (and its shared layer ptogen/kindlib/) and the templates never switch
  on an op kind's name or class: each consumer asks the kind through its own contract (the spec
  checks `spec.kindfacts`, the import `importer.contract`, the lowering `lower.contract`, the tests
  `testing.contract`), and `OpKind` itself keeps only what every kind has.
- Templates see views only: they never read the spec model (`op.spec`).
- Every op kind recognises its own generated pages (`OpKind.recognise`), so `ptogen import` reads a
  page back as the kind that wrote it.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path
from typing import Any

import jinja2
import pytest

from ptogen import opkinds
from ptogen.importer import kinds
from ptogen.importer.build import ImportProblem, import_page
from ptogen.opkinds import KINDS, PageOp
from ptogen.rules import RULE_KINDS, RuleBase, kind_name
from ptogen.spec.load import load_specs

from .helpers import ROOT, generated_pages

PACKAGE = ROOT / "ptogen"
KINDLIB = PACKAGE / "kindlib"  # what op kinds share (the families' bases among it)
TEMPLATES = ROOT / "templates"
DOCS = ROOT / "generated/docs/isa"

RULE_CLASSES = {cls.__name__ for cls in RULE_KINDS}
RULE_KIND_NAMES = {kind_name(cls) for cls in RULE_KINDS}
# Fields some rule kinds have and others lack (`RuleBase`'s own, such as `profiles`, every rule has).
RULE_FIELDS = {f for cls in RULE_KINDS for f in cls.model_fields} - set(RuleBase.model_fields)


# ----------------------------------------------------------------------------- rule kinds


def _name(node: ast.AST) -> str | None:
    """The identifier an expression ends in: `rv.rule` -> `rule`, `rule` -> `rule`."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def _holds_rule(node: ast.AST) -> bool:
    """Whether an expression is, by its name, a rule or a rule's view (`rule`, `rv.rule`, `rv`, `r`)."""
    name = _name(node)
    return name is not None and (name in ("r", "rv") or name.endswith("rule"))


def _is_kind(node: ast.AST) -> bool:
    """`x.kind`, `x["kind"]`, `x.get("kind")`, `kind_name(cls)` or a variable named `kind`."""
    if isinstance(node, ast.Attribute) and node.attr == "kind":
        return True
    if isinstance(node, ast.Name) and node.id == "kind":
        return True
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.slice, ast.Constant)
        and node.slice.value == "kind"
    ):
        return True
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name) and func.id == "kind_name":
            return True
        if isinstance(func, ast.Attribute) and func.attr == "get" and node.args:
            first = node.args[0]
            return isinstance(first, ast.Constant) and first.value == "kind"
    return False


def _rule_kind_literals(node: ast.AST) -> set[str]:
    """Rule-kind names a literal (or a tuple, list or set of literals) spells."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in RULE_KIND_NAMES:
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return {v for elt in node.elts for v in _rule_kind_literals(elt)}
    return set()


def _rule_classes_named(node: ast.AST) -> set[str]:
    """Rule class names an expression spells (`DTypeRule`, `rules.DTypeRule`, a tuple of them)."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return {n for elt in node.elts for n in _rule_classes_named(elt)}
    name = _name(node)
    return {name} if name in RULE_CLASSES else set()


def rule_kind_switches(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, what) for each place in a module that treats particular rule kinds specially."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = _name(node.func)
            if func in ("isinstance", "issubclass") and len(node.args) == 2:
                for cls in sorted(_rule_classes_named(node.args[1])):
                    found.append((node.lineno, f"{func}(..., {cls})"))
            if func in ("getattr", "hasattr") and len(node.args) >= 2:
                field = node.args[1]
                if (
                    isinstance(field, ast.Constant)
                    and field.value in RULE_FIELDS
                    and _holds_rule(node.args[0])
                ):
                    found.append((node.lineno, f"{func}({ast.unparse(node.args[0])}, {field.value!r})"))
        elif isinstance(node, ast.Attribute):
            if node.attr in RULE_FIELDS and _holds_rule(node.value):
                found.append((node.lineno, f"reads {ast.unparse(node)} (a field some rule kinds lack)"))
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            literals = {v for side in sides for v in _rule_kind_literals(side)}
            if literals and any(_is_kind(side) for side in sides):
                found.append((node.lineno, f"compares a kind with {', '.join(sorted(literals))}"))
            for cls in sorted({c for side in sides for c in _rule_classes_named(side)}):
                found.append((node.lineno, f"compares with the class {cls}"))
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "kind" and _rule_kind_literals(value):
                    found.append((node.lineno, f"builds a rule of kind {ast.unparse(value)}"))
        elif isinstance(node, ast.Match) and _is_kind(node.subject):
            for case in node.cases:
                for sub in ast.walk(case.pattern):
                    if isinstance(sub, ast.MatchValue) and _rule_kind_literals(sub.value):
                        found.append((sub.lineno, f"matches the kind {ast.unparse(sub.value)}"))
    return sorted(found)


def _rule_switches_outside_rules() -> list[str]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if (PACKAGE / "rules") in path.parents:
            continue
        rel = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(), filename=rel)
        out += [f"{rel}:{line}: {what}" for line, what in rule_kind_switches(tree)]
    return out


def test_no_code_outside_rules_switches_on_a_rule_kind() -> None:
    offending = _rule_switches_outside_rules()
    assert not offending, (
        "code outside ptogen/rules/ treats particular rule kinds specially; give a part in "
        "ptogen/rules/parts.py a hook (with a default) and let the kinds that need it inherit and "
        "override it:\n" + "\n".join(offending)
    )


@pytest.mark.parametrize(
    "code",
    [
        "if isinstance(rv.rule, DTypeRule): pass",
        "ok = isinstance(rule, (rules.TableLayoutRule, int))",
        "w = getattr(rv.rule, 'when', None)",
        "x = rv.rule.layouts",
        "if rv.kind == 'unavailable': pass",
        "if rule.kind in ('dtype', 'dtype_pairs'): pass",
        "if kind_name(cls) != 'dtype': pass",
        "if r['kind'] == 'dtype': pass",
        "rule = {'kind': 'dtype', 'dtypes': []}",
        "if type(rule) is DTypeRule: pass",
        "match rule.kind:\n    case 'dtype': pass",
    ],
)
def test_the_detector_sees_rule_kind_switches(code: str) -> None:
    assert rule_kind_switches(ast.parse(code)), code


@pytest.mark.parametrize(
    "code",
    [
        "if o.kind == 'tile': pass",  # an operand's kind
        "if t.kind in ('value', 'pack'): pass",  # a template parameter's kind
        "if d.kind == 'float': pass",  # a dtype's kind
        "tol = {'kind': 'exact'}",
        "if typ == 'dtype': pass",  # a word, not a kind
        "n = getattr(args, 'operands', None)",  # not a rule
        "for rv in op.rules_for(p): rv.rule.condition(op, rv)",  # a hook
        "ok = isinstance(rule, RuleBase)",
    ],
)
def test_the_detector_ignores_other_kinds(code: str) -> None:
    assert not rule_kind_switches(ast.parse(code)), code


# What every rule has: `RuleBase`'s fields and own attributes, pydantic's class machinery counted once.
RULE_BASE_LIMIT = 10
_MODEL_MACHINERY = {"model_config", "_abc_impl"}


def rule_base_members() -> list[str]:
    own = [n for n in vars(RuleBase) if not n.startswith("__") and n not in _MODEL_MACHINERY]
    machinery = ["(pydantic's model_config)"] if _MODEL_MACHINERY & set(vars(RuleBase)) else []
    return [*RuleBase.model_fields, *own, *machinery]


def test_rule_base_keeps_only_what_every_rule_has() -> None:
    members = rule_base_members()
    assert len(members) <= RULE_BASE_LIMIT, (
        f"RuleBase has {len(members)} members ({', '.join(members)}), more than {RULE_BASE_LIMIT}: a "
        "behaviour one rule kind has goes in that kind's module; one some kinds share is a part in "
        "ptogen/rules/parts.py that those kinds inherit and its consumer reads through part(rule, P)"
    )


def test_every_rule_part_is_some_kinds() -> None:
    import dataclasses

    from ptogen.rules import parts

    # The mixins (not the records and protocols the module also holds).
    declared = [
        c
        for c in vars(parts).values()
        if isinstance(c, type)
        and c.__module__ == parts.__name__
        and c.__bases__ == (object,)
        and not dataclasses.is_dataclass(c)
    ]
    assert len(declared) > 5
    unused = [c.__name__ for c in declared if not any(issubclass(k, c) for k in RULE_KINDS)]
    assert not unused, f"parts no rule kind has (fold them into a kind's module or drop them): {unused}"


# ----------------------------------------------------------------------------- op kinds


def _op_kind_classes() -> set[str]:
    """The names of OpKind and every class derived from it (the kinds and their shared bases)."""
    out: set[str] = set()
    todo: list[type] = [opkinds.OpKind]
    while todo:
        cls = todo.pop()
        out.add(cls.__name__)
        todo += cls.__subclasses__()
    return out


OP_KIND_NAMES = set(KINDS)
OP_KIND_CLASSES = _op_kind_classes()


def _op_kind_literals(node: ast.AST) -> set[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in OP_KIND_NAMES:
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return {v for elt in node.elts for v in _op_kind_literals(elt)}
    return set()


def op_kind_switches(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, what) for each place in a module that treats particular op kinds specially: it imports
    or names a kind's class from ptogen.opkinds (isinstance, a call, a subclass) or compares or
    matches a value with a kind's name."""
    found: list[tuple[int, str]] = []
    classes = OP_KIND_CLASSES - {"OpKind"}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and "opkinds" in (node.module or ""):
            for alias in node.names:
                if alias.name in classes:
                    found.append((node.lineno, f"imports the op kind class {alias.name}"))
        elif (
            isinstance(node, ast.Attribute) and node.attr in classes and "opkinds" in ast.unparse(node.value)
        ):
            found.append((node.lineno, f"names the op kind class {node.attr}"))
        elif isinstance(node, ast.Compare):
            literals = {v for side in [node.left, *node.comparators] for v in _op_kind_literals(side)}
            if literals:
                found.append((node.lineno, f"compares with the op kind {', '.join(sorted(literals))}"))
        elif isinstance(node, ast.MatchValue) and _op_kind_literals(node.value):
            found.append((node.lineno, f"matches the op kind {ast.unparse(node.value)}"))
    return sorted(found)


def template_op_kind_switches(root: Path) -> list[str]:
    """`file:line: what` for each comparison of a value with an op kind's name in the templates."""
    env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    out = []
    for path in sorted(root.rglob("*.j2")):
        rel = path.relative_to(root).as_posix()
        for node in env.parse(path.read_text()).find_all(jinja2.nodes.Compare):
            consts = [node.expr, *(o.expr for o in node.ops)]
            names = {
                c.value
                for side in consts
                for c in ([side] if isinstance(side, jinja2.nodes.Const) else getattr(side, "items", []))
                if isinstance(c, jinja2.nodes.Const) and c.value in OP_KIND_NAMES
            }
            if names:
                out.append(
                    f"templates/{rel}:{node.lineno}: compares with the op kind {', '.join(sorted(names))}"
                )
    return out


def test_no_code_outside_opkinds_switches_on_an_op_kind() -> None:
    """A new op kind is its own module and templates: the shared code and templates ask the kind
    through the consumer's contract and never learn a kind's name or class."""
    offending = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if (PACKAGE / "opkinds") in path.parents or KINDLIB in path.parents:
            continue
        rel = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(), filename=rel)
        offending += [f"{rel}:{line}: {what}" for line, what in op_kind_switches(tree)]
    offending += template_op_kind_switches(TEMPLATES)
    assert not offending, (
        "shared code treats particular op kinds specially; put the behaviour in the kind's own module "
        "and expose it through the consumer's contract (a hook with a default, or data such as "
        "KindFacts or a planned case's fields):\n" + "\n".join(offending)
    )


@pytest.mark.parametrize(
    "code",
    [
        "if spec.semantics.kind != 'elementwise': pass",
        "if k in ('matmul', 'move'): pass",
        "from ptogen.opkinds.matmul import Matmul",
        "from .opkinds import Remap, kind",
        "k = opkinds.remap.Remap()",
        "match name:\n    case 'transfer': pass",
    ],
)
def test_the_op_kind_detector_sees_switches(code: str) -> None:
    assert op_kind_switches(ast.parse(code)), code


@pytest.mark.parametrize(
    "code",
    [
        "if o.kind == 'tile': pass",
        "if kind_of(spec.semantics.kind).whole_tile_bench: pass",
        "ok = isinstance(k, OpKind)",
        "rng = random.Random(1)",  # another module's class of the same name
    ],
)
def test_the_op_kind_detector_ignores_hooks(code: str) -> None:
    assert not op_kind_switches(ast.parse(code)), code


def test_the_template_op_kind_check_finds_comparisons(tmp_path: Path) -> None:
    (tmp_path / "a.j2").write_text(
        '{% if op.kind == "remap" %}x{% endif %}\n{% if o.kind in ["gather", "t"] %}{% endif %}\n'
    )
    (tmp_path / "b.j2").write_text('{% if o.kind == "tile" %}x{% endif %}\n')
    assert template_op_kind_switches(tmp_path) == [
        "templates/a.j2:1: compares with the op kind remap",
        "templates/a.j2:2: compares with the op kind gather",
    ]


# ----------------------------------------------------------------------------- the OpKind base

OPKIND_MEMBERS = 10


def test_op_kind_keeps_only_what_every_kind_has() -> None:
    """Each consumer owns its contract with the kinds (beside it: spec/kindfacts.py,
    importer/contract.py, lower/contract.py, testing/contract.py); the OpKind base keeps only what
    every kind has, so a new kind does not face one interface of everything."""
    members = [n for n in vars(opkinds.OpKind) if not n.startswith("__")]
    assert len(members) <= OPKIND_MEMBERS, (
        f"OpKind has {len(members)} members ({', '.join(members)}); at most {OPKIND_MEMBERS}. Behaviour one "
        "kind has goes in that kind's own module, exposed as data (KindFacts, a planned case's fields) "
        "or a hook with a default through the contract of the one consumer that reads it."
    )


# ----------------------------------------------------------------------------- module layering


def _module_name(path: Path) -> str:
    """`ptogen.opkinds.move` for ptogen/opkinds/move.py (a package's __init__: the package)."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(path: Path, node: ast.ImportFrom) -> str:
    """The absolute module an import statement of `path` reads from."""
    if not node.level:
        return node.module or ""
    package = _module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


@functools.cache
def _is_module(name: str) -> bool:
    """Whether a dotted name is a module of this checkout (`ptogen.emit.format`)."""
    where = ROOT.joinpath(*name.split("."))
    return where.with_suffix(".py").is_file() or (where / "__init__.py").is_file()


def layering_problems(path: Path, tree: ast.AST) -> list[str]:
    """What a module imports that it should not: (1) a module of ptogen/opkinds/ other than the
    registry, or the shared layer ptogen/kindlib/, imports an op-kind module other than
    `opkinds.base`; (2) a private `_name` of another module, imported by name or read through the
    module (`fmt._run`)."""
    me = _module_name(path)
    shared = me.startswith("ptogen.kindlib") or (me.startswith("ptogen.opkinds") and me != "ptogen.opkinds")
    out = []
    imports: list[ast.Import | ast.ImportFrom] = []
    private: list[ast.Attribute] = []  # `x._name`: a private name read through whatever x holds
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.append(node)
        elif isinstance(node, ast.Attribute) and node.attr[:1] == "_" and node.attr[:2] != "__":
            private.append(node)
    modules: dict[str, str] = {}  # a name bound to a module of this checkout -> the module
    for node in imports:
        if isinstance(node, ast.Import):
            modules |= {a.asname: a.name for a in node.names if a.asname and a.name.startswith("ptogen")}
            continue
        source = _imported(path, node)
        modules |= {
            a.asname or a.name: f"{source}.{a.name}"
            for a in node.names
            if source.startswith("ptogen") and _is_module(f"{source}.{a.name}")
        }
        targets = [source] if source != "ptogen.opkinds" else [f"{source}.{a.name}" for a in node.names]
        for target in targets:
            if shared and target.startswith("ptogen.opkinds") and target not in ("ptogen.opkinds.base",):
                out.append(f"{node.lineno}: imports the op-kind module {target}")
        for alias in node.names:
            if alias.name.startswith("_") and not alias.name.startswith("__"):
                out.append(f"{node.lineno}: imports the private name {alias.name} of {source}")
    for attr in private:
        if not isinstance(attr.value, (ast.Name, ast.Attribute)):
            continue
        held = attr.value.id if isinstance(attr.value, ast.Name) else ast.unparse(attr.value)
        module = modules.get(held, held if held.startswith("ptogen.") and _is_module(held) else None)
        if module is not None and module != me:
            out.append(f"{attr.lineno}: reads the private name {attr.attr} of {module}")
    return out


def test_op_kinds_import_only_the_base_and_the_shared_layer() -> None:
    """An op kind is one module: it may import `opkinds.base` and the shared layer (ptogen/kindlib/),
    never another kind's module, and no module imports another's private names. What two kinds
    share (a layout, a quantisation, a golden check, a family's base class) is public in kindlib."""
    offending = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(), filename=rel)
        offending += [f"{rel}:{p}" for p in layering_problems(path, tree)]
    for path in sorted((ROOT / "tests").rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        offending += [
            f"{path.relative_to(ROOT)}:{p}"
            for p in layering_problems(path, tree)
            if "private name" in p and "ptogen" in p
        ]
    assert not offending, (
        "move what several op kinds share into ptogen/kindlib/ (one public implementation) and import "
        "it from there; a name another module needs is public (no leading underscore):\n"
        + "\n".join(offending)
    )


@pytest.mark.parametrize(
    ("module", "code", "problem"),
    [
        ("ptogen/opkinds/fillpad.py", "from .move import Move", "op-kind module ptogen.opkinds.move"),
        ("ptogen/kindlib/forms.py", "from ..opkinds.gather import Gather", "ptogen.opkinds.gather"),
        ("ptogen/kindlib/forms.py", "from ..opkinds import gather", "ptogen.opkinds.gather"),
        ("ptogen/opkinds/move.py", "from ..testing.golden import _bits", "private name _bits"),
        ("ptogen/lower/views.py", "from .cpp import _spell", "private name _spell"),
        ("tests/cli/test_x.py", "from ptogen.emit import format as fmt\nfmt._run()", "_run of ptogen.emit"),
        ("ptogen/cli.py", "import ptogen.emit.format as f\nf._run()", "_run of ptogen.emit.format"),
        ("ptogen/cli.py", "import ptogen.emit.format\nptogen.emit.format._run()", "_run of ptogen.emit"),
    ],
)
def test_the_layering_check_finds_problems(module: str, code: str, problem: str) -> None:
    found = layering_problems(ROOT / module, ast.parse(code))
    assert any(problem in p for p in found), found


@pytest.mark.parametrize(
    ("module", "code"),
    [
        ("ptogen/opkinds/move.py", "from .base import NamesOperand"),
        ("ptogen/opkinds/move.py", "from ..kindlib.layout import tile_logical"),
        ("ptogen/kindlib/forms.py", "from ..opkinds.base import NamesOperand"),
        ("ptogen/lower/views.py", "from ..opkinds import KINDS, OpKind"),
        ("ptogen/opkinds/move.py", "from __future__ import annotations"),
        ("ptogen/emit/format.py", "from . import format\nformat._run()"),  # its own private name
        ("ptogen/cli.py", "from .emit import format as fmt\nfmt.run._cache"),  # a module's public name
    ],
)
def test_the_layering_check_allows_the_base_and_the_shared_layer(module: str, code: str) -> None:
    assert not layering_problems(ROOT / module, ast.parse(code))


# ----------------------------------------------------------------------------- templates


def template_spec_reads(root: Path) -> list[str]:
    """`file:line: expression` for each read of a view's `spec` (the spec model) in the templates."""
    env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    out = []
    for path in sorted(root.rglob("*.j2")):
        rel = path.relative_to(root).as_posix()
        for node in env.parse(path.read_text()).find_all((jinja2.nodes.Getattr, jinja2.nodes.Getitem)):
            if isinstance(node, jinja2.nodes.Getattr) and node.attr == "spec":
                what = f"{_jinja_name(node.node)}.spec"
            elif (
                isinstance(node, jinja2.nodes.Getitem)
                and isinstance(node.arg, jinja2.nodes.Const)
                and node.arg.value == "spec"
            ):
                what = f'{_jinja_name(node.node)}["spec"]'
            else:
                continue
            out.append(f"templates/{rel}:{node.lineno}: {what}")
    return out


def _jinja_name(node: jinja2.nodes.Node) -> str:
    if isinstance(node, jinja2.nodes.Name):
        return str(node.name)
    if isinstance(node, jinja2.nodes.Getattr):
        return f"{_jinja_name(node.node)}.{node.attr}"
    return "(...)"


def test_templates_see_views_only() -> None:
    offending = template_spec_reads(TEMPLATES)
    assert not offending, (
        f"{len(offending)} template reads of the spec model; give the view a property instead:\n"
        + "\n".join(offending)
    )


def test_the_template_check_finds_spec_reads(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub/a.md.j2").write_text("{{ op.name }}\n{% if op.spec.semantics.domain %}x{% endif %}\n")
    (tmp_path / "b.hpp.j2").write_text("{{ prev['spec'] }} {{ op.upper }}\n")
    assert template_spec_reads(tmp_path) == [
        'templates/b.hpp.j2:1: prev["spec"]',
        "templates/sub/a.md.j2:2: op.spec",
    ]


# ----------------------------------------------------------------------------- op kinds


def _own_pages() -> list[tuple[str, str, Path]]:
    """(op, its spec's `semantics.kind`, page) for both generated pages of every op."""
    return [(spec.stem, kind, page) for spec, kind, page in generated_pages()]


@functools.cache
def _targets() -> Any:
    return load_specs(ROOT / "specs", ROOT).targets


def test_every_op_kind_recognises_its_own_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    cases = _own_pages()
    assert {kind for _, kind, _ in cases} == set(KINDS), "some op kind has no spec, so no page to read"
    seen: list[PageOp] = []

    class Seen(Exception):
        """Ends an import once the kinds have been asked: the rest of it is the round trip's test."""

    def spy(page: PageOp) -> str | None:
        seen.append(page)
        raise Seen

    monkeypatch.setattr(kinds, "recognise_kind", spy)
    problems = []
    for op, own, page in cases:
        seen.clear()
        rel = page.relative_to(ROOT).as_posix()
        try:
            import_page(page, _targets())
        except ImportProblem as exc:  # the spy's stop, or an earlier problem
            if not seen:
                problems.append(f"{rel}: the import stops before asking the op kinds: {exc}")
                continue
        (facts,) = seen
        scores = {name: k.recognise(facts) for name, k in KINDS.items()}
        if scores[own] is None:
            problems.append(f"{rel}: {own} does not recognise this page of {op}")
        elif (taken := opkinds.recognise(facts)) != own:
            problems.append(
                f"{rel}: {own} recognises this page of {op} (evidence {scores[own]}), but the import takes "
                f"{taken} (evidence {scores[str(taken)]})"
            )
    assert not problems, "\n".join(problems)
