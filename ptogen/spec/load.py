"""Load `specs/`: YAML -> Pydantic models, plus the cross-file checks Pydantic cannot see.

Every problem becomes a SpecError naming the file, the line and the field. All files are
checked before anything is reported, so one run shows every mistake.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from .. import rule_api
from ..errors import SpecError, SpecErrors, collected, did_you_mean, nearest
from ..rules.parts import form_scoped, is_static
from . import classes as opclasses
from . import expr as semantics
from .loader import LoadedDoc, SourceMap, display_path, load_yaml
from .model import OpSpec, Targets
from .resolve import SHORTHAND_KEYS, Node, resolve

TARGETS_FILE = "targets.yaml"
TARGETS_FILE_SHOWN = f"specs/{TARGETS_FILE}"


@dataclass(frozen=True)
class LoadedOp:
    spec: OpSpec
    path: str  # relative to the project root, e.g. specs/ops/.../tlrelu.yaml
    source: SourceMap  # of the resolved spec: `where(path)` names the file (spec or class) and line
    expr: semantics.Node  # semantics.expr, parsed once here
    extra_exprs: dict[str, semantics.Node]  # semantics.extra_outputs, parsed once here
    form_exprs: dict[int, semantics.Node] = dataclasses.field(
        default_factory=dict
    )  # overload index (1-based) -> expr


@dataclass(frozen=True)
class SpecSet:
    targets: Targets
    targets_path: str
    ops: list[LoadedOp]
    enum_cases: dict[str, dict[str, semantics.Node]]  # enum -> value -> parsed case expression
    provenance: dict[str, dict[tuple[str | int, ...], Node]] = dataclasses.field(default_factory=dict)
    classes: dict[str, opclasses.ClassDoc] = dataclasses.field(default_factory=dict)

    def ops_in_set(self, set_id: str) -> list[LoadedOp]:
        """The set's ops in its canonical order."""
        order = self.targets.instruction_set(set_id).order
        found = [op for op in self.ops if op.spec.instruction_set == set_id]
        return sorted(found, key=lambda op: order.index(op.spec.mnemonic))

    def op(self, name: str) -> LoadedOp:
        """The op a name selects: its key (tgather, comm.tgather, either with `pto.`) or its file stem
        (comm_tgather)."""
        key = name.lower().removeprefix("pto.")
        for op in self.ops:
            if key in (op.spec.key, op.spec.stem):
                return op
        raise KeyError(name)


def _unwrap(tp: Any) -> Any:
    while get_origin(tp) is Annotated:
        tp = get_args(tp)[0]
    return tp


def _members(tp: Any) -> list[Any]:
    """The alternatives of a union type (Optional's None left out), or [tp]."""
    tp = _unwrap(tp)
    if get_origin(tp) in (Union, UnionType):
        return [_unwrap(a) for a in get_args(tp) if a is not type(None)]
    return [tp]


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def _tags(model: Any) -> tuple[Any, ...]:
    """The values of a model's `kind` literal: its tags in a discriminated union."""
    field = model.model_fields.get("kind") if _is_model(model) else None
    return get_args(_unwrap(field.annotation)) if field is not None else ()


def _step(tp: Any, part: Any) -> tuple[Any, bool]:
    """The type one location part further in, and whether the part was a union's tag (no data key)."""
    members = _members(tp)
    for m in members:  # the tag of a discriminated union (the rule kinds), or a smart union's member
        tag = len(members) > 1 and part in _tags(m)
        if isinstance(part, str) and _is_model(m) and (tag or m.__name__ == part):
            return m, True
    for m in members:
        origin = get_origin(m)
        if _is_model(m) and isinstance(part, str) and part in m.model_fields:
            return m.model_fields[part].annotation, False
        if origin in (list, tuple) and isinstance(part, int):
            return get_args(m)[0], False
        if origin is dict and isinstance(part, str) and get_args(m):
            return get_args(m)[1], False
    return None, False


def _model_at(model: Any, loc: tuple[Any, ...]) -> Any:
    """The Pydantic model a validation error's location ends in, or None."""
    tp = model
    for part in loc:
        tp, _ = _step(tp, part)
        if tp is None:
            return None
    found = [m for m in _members(tp) if _is_model(m)]
    return found[0] if len(found) == 1 else None


def _field_path(loc: tuple[Any, ...], data: Any, model: Any = None) -> tuple[str | int, ...]:
    """Drop Pydantic's union/validator tags from an error location, keeping real data keys."""
    path: list[str | int] = []
    node = data
    tp = model
    for part in loc:
        tp, tag = _step(tp, part) if tp is not None else (None, False)
        if tag:
            continue  # the tag of the discriminated union of rule kinds (or a union member), not a key
        if (
            isinstance(node, dict)
            and part in node
            or isinstance(node, list)
            and isinstance(part, int)
            and part < len(node)
        ):
            path.append(part)
            node = node[part]
        elif model is None and isinstance(node, dict) and part == node.get("kind"):
            continue  # the tag of the discriminated union of rule kinds, not a key
        elif isinstance(node, dict) and isinstance(part, str) and not any(c in part for c in "[]-"):
            # A missing or extra field: name it, though it has no line of its own.
            path.append(part)
            node = None
    return tuple(path)


def _dotted(path: tuple[str | int, ...]) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _validation_errors(exc: ValidationError, doc: LoadedDoc, model: Any = None) -> list[SpecError]:
    errors = exc.errors()
    # A misspelt key is one mistake: report it (with the field it is near) and not also the
    # required field it was meant to be.
    missing = {tuple(e["loc"]) for e in errors if e["type"] == "missing"}
    meant: dict[tuple[Any, ...], str] = {}
    for err in errors:
        loc = tuple(err["loc"])
        if err["type"] != "extra_forbidden" or not isinstance(loc[-1], str):
            continue
        near = [str(k) for (*p, k) in missing if tuple(p) == loc[:-1]]
        found = _model_at(model, loc[:-1]) if model is not None else None
        known = list(found.model_fields) if found is not None else []
        if found is OpSpec:  # a spec file's own keys: `class:` and the `dtypes:` shorthand
            known += list(SHORTHAND_KEYS)
        close = nearest(loc[-1], near) or nearest(loc[-1], [k for k in known if k != loc[-1]])
        if close is not None:
            meant[loc] = f" (did you mean {close!r}?)"
            missing.discard((*loc[:-1], close))
    out = []
    for err in errors:
        loc = tuple(err["loc"])
        if err["type"] == "missing" and loc not in missing:
            continue
        path = _field_path(loc, doc.data, model)
        message = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            message = f"unknown field{meant.get(loc, '')}"
            if isinstance(loc[-1], str) and re.search(r"[()\[\]*+/<>=]", loc[-1]):
                # `{expr: max(src, scalar)}`: YAML ends the value at the comma and reads the rest
                # as a key.
                message += " (an expression containing a comma must be quoted: expr: 'max(a, b)')"
        elif err["type"] == "union_tag_invalid":
            tag = str(err.get("ctx", {}).get("tag", ""))
            known_tags = re.findall(r"'([^']*)'", str(err.get("ctx", {}).get("expected_tags", "")))
            what = "rule kind" if path[:1] == ("constraints",) else "kind"
            listed = f" (known: {', '.join(known_tags)})"
            message = f"unknown {what} {tag!r}{did_you_mean(tag, known_tags) or listed}"
            path = (*path, "kind")
        elif err["type"] == "union_tag_not_found":
            message, path = "Field required", (*path, "kind")
        out.append(SpecError(*doc.source.where(path), doc.source.spelled(path), message))
    return out


def _parse_model(model: type[Any], doc: LoadedDoc) -> Any:
    if not isinstance(doc.data, dict):
        raise SpecErrors([SpecError(doc.source.file, 1, "", "a spec file must be a YAML mapping")])
    try:
        return model.model_validate(doc.data)
    except ValidationError as exc:
        raise SpecErrors(_validation_errors(exc, doc, model)) from None


def load_specs(specs_dir: Path, root: Path | None = None) -> SpecSet:
    """Load and check every spec under `specs_dir`; raise SpecErrors listing all problems."""
    root = root or specs_dir.parent
    targets_file = specs_dir / TARGETS_FILE
    if not targets_file.is_file():
        raise SpecErrors(
            [SpecError(display_path(targets_file, root), None, "", "missing: profiles and dtypes live here")]
        )
    # Parses are cached by content next to the other caches (`.ptogen-cache/yaml`).
    cache = root / ".ptogen-cache" / "yaml"
    targets_doc = opclasses.inherit_profiles(load_yaml(targets_file, display_path(targets_file, root), cache))
    targets: Targets = _parse_model(Targets, targets_doc)
    set_element_bytes(targets)
    _check_tile_type(targets, targets_doc)
    enum_cases = _parse_enum_cases(targets, targets_doc)
    classes_dir = specs_dir / opclasses.CLASSES_DIR
    context = opclasses.load_context(targets, targets_doc, classes_dir, root, cache)
    context_key = _context_key(targets_file, classes_dir, root)

    errors: list[SpecError] = []
    ops: list[LoadedOp] = []
    provenance: dict[str, dict[tuple[str | int, ...], Node]] = {}
    for path in sorted(specs_dir.rglob("*.yaml")):
        if path == targets_file or classes_dir in path.parents:
            continue
        display = display_path(path, root)
        resolved = collected(errors, partial(_resolved, path, display, cache, context, context_key))
        if resolved is None:
            continue
        doc, origins = resolved
        spec: OpSpec | None = collected(errors, partial(_parse_model, OpSpec, doc))
        if spec is None:
            continue
        parsed: dict[str, semantics.Node] = {}
        problems = check_op(spec, targets, parsed)
        errors.extend(SpecError(*doc.source.where(p), doc.source.spelled(p), m) for p, m in problems)
        if not problems:
            extra = {n: parsed[n] for n in spec.semantics.extra_outputs}
            forms = {int(n[len(_FORM) :]): node for n, node in parsed.items() if n.startswith(_FORM)}
            ops.append(LoadedOp(spec, display, doc.source, parsed[""], extra, forms))
            provenance[display] = origins

    errors.extend(_check_unique(ops))
    if not errors:  # a spec that failed to load would make its dispatch targets look undefined
        errors.extend(_check_dispatch_targets(ops))
        errors.extend(_check_families(targets, targets_doc))
        errors.extend(_check_groupings(targets, targets_doc))
    if errors:
        # A mistake in a class reaches every op that uses it: report it once.
        unique = {str(e): e for e in errors}
        raise SpecErrors(list(unique.values()))
    return SpecSet(targets, display_path(targets_file, root), ops, enum_cases, provenance, context.classes)


def _check_groupings(targets: Targets, doc: LoadedDoc) -> list[SpecError]:
    """The op kinds that `categories` and `units` name are registered kinds."""
    from ..opkinds import KINDS

    return [
        SpecError(
            doc.source.file,
            doc.source.line_of((key, i, "kinds", j)) or doc.source.line_of((key, i)),
            f"{key}[{i}].kinds[{j}]",
            f"unknown op kind {k!r}{did_you_mean(k, list(KINDS))}",
        )
        for key, groups in (("categories", targets.categories), ("units", targets.units))
        for i, g in enumerate(groups)
        for j, k in enumerate(g.kinds)
        if k not in KINDS
    ]


def _check_families(targets: Targets, doc: LoadedDoc) -> list[SpecError]:
    """Every family member is an op of some instruction set's `order` (the pages link it there).
    Checked after the ops, so that an op missing from its set's order is reported as such."""
    known = {m for s in targets.instruction_sets for m in s.order}
    return [
        SpecError(
            doc.source.file,
            doc.source.line_of(("families", i, "ops", j)) or doc.source.line_of(("families", i)),
            f"families[{i}].ops[{j}]",
            f"{m} is in no instruction set's `order`{did_you_mean(m, sorted(known))}",
        )
        for i, f in enumerate(targets.families)
        for j, m in enumerate(f.ops)
        if m not in known
    ]


def _parse_enum_cases(targets: Targets, doc: LoadedDoc) -> dict[str, dict[str, semantics.Node]]:
    out: dict[str, dict[str, semantics.Node]] = {}
    errors = []
    for i, enum in enumerate(targets.enums):
        if enum.apply is None:
            continue
        out[enum.name] = {}
        for value, text in enum.apply.cases.items():
            try:
                out[enum.name][value] = semantics.parse(text, set(enum.apply.params))
            except semantics.ExprError as exc:
                path = ("enums", i, "apply", "cases", value)
                errors.append(SpecError(*doc.source.where(path), _dotted(path), str(exc)))
    if errors:
        raise SpecErrors(errors)
    return out


def _expr_scope(spec: OpSpec, targets: Targets) -> tuple[set[str], dict[str, int]]:
    """Operand names an op's expression may read, and attributes it may apply (with arity)."""
    enums = {e.name: e for e in targets.enums}
    from ..opkinds import KINDS  # the registry of op kinds (it depends on nothing of this module)

    kind = KINDS.get(spec.semantics.kind)
    attrs = dict(kind.facts.functions) if kind is not None else {}
    for o in spec.operands:
        if o.kind == "attr" and o.enum in enums and enums[o.enum].apply is not None:
            attrs[o.name] = len(enums[o.enum].apply.params)  # type: ignore[union-attr]
    names = {
        o.name
        for o in spec.operands
        if o.kind in ("tile", "scalar", "vreg", "global", "events", "context")
        or (o.kind == "mask" and o.role != "mask")
    }  # a carry-in mask is a value; the predicate is not; a context only where the kind reads groups
    return names, attrs


# Resolved specs of this process, by (display path, the file's bytes, the context's inputs): a
# process that loads many copies of a project (the test suite) resolves each spec once. Only
# successful resolutions are kept, and nothing downstream changes a resolved document.
_RESOLVED: dict[tuple[str, str, str], tuple[LoadedDoc, dict[tuple[str | int, ...], Node]]] = {}
_RESOLVED_MAX = 4096


def _context_key(targets_file: Path, classes_dir: Path, root: Path) -> str:
    """What a spec's resolution depends on besides its own file: targets.yaml and the class files."""
    h = hashlib.sha256(targets_file.read_bytes())
    for path in sorted(classes_dir.glob("*.yaml")) if classes_dir.is_dir() else []:
        h.update(display_path(path, root).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def _resolved(
    path: Path, display: str, cache: Path, context: opclasses.Context, context_key: str
) -> tuple[LoadedDoc, dict[tuple[str | int, ...], Node]]:
    key = (display, hashlib.sha256(path.read_bytes()).hexdigest(), context_key)
    hit = _RESOLVED.get(key)
    if hit is None:
        hit = resolve(load_yaml(path, display, cache), context)
        if len(_RESOLVED) >= _RESOLVED_MAX:
            _RESOLVED.clear()
        _RESOLVED[key] = hit
    return hit


def _check_dispatch_targets(ops: list[LoadedOp]) -> list[SpecError]:
    """A dispatch to another op's `_IMPL` names an intrinsic some spec defines."""
    from ..opkinds import KINDS

    names = {op.spec.intrinsic.name for op in ops if op.spec.intrinsic is not None}
    errors = []
    for op in ops:
        intr = op.spec.intrinsic
        if intr is None:
            continue
        kind = KINDS.get(op.spec.semantics.kind)
        names |= kind.own_impls(op.spec) if kind is not None else set()
        forms: list[tuple[tuple[str | int, ...], Any]] = [(("intrinsic",), intr.dispatch)]
        forms += [(("intrinsic", "overloads", k), ov.dispatch) for k, ov in enumerate(intr.overloads)]
        for at, dispatch in forms:
            if dispatch.impl is not None and dispatch.call != "helper" and dispatch.impl not in names:
                path = (*at, "dispatch", "impl")
                errors.append(
                    SpecError(
                        *op.source.where(path), op.source.spelled(path), f"no spec defines {dispatch.impl!r}"
                    )
                )
    return errors


def _check_unique(ops: list[LoadedOp]) -> list[SpecError]:
    errors = []
    seen: dict[str, str] = {}
    for op in ops:
        keys = [("mnemonic", op.spec.mnemonic)]
        if op.spec.intrinsic is not None:
            # a qualified key's intrinsic lives in its own namespace (pto::comm::TGATHER)
            where = f"{op.spec.qualifier}::" if op.spec.qualifier else ""
            keys.append(("intrinsic.name", where + op.spec.intrinsic.name))
        for field, value in keys:
            if value in seen:
                line = op.source.line_of(tuple(field.split(".")))
                errors.append(
                    SpecError(op.path, line, field, f"duplicate {value!r}, already defined in {seen[value]}")
                )
            else:
                seen[value] = op.path
    return errors


Problem = tuple[tuple[str | int, ...], str]
_FORM = "overload:"  # key prefix of an overload's own expression in check_op's `parsed`


def check_op(
    spec: OpSpec, targets: Targets, parsed: dict[str, semantics.Node] | None = None
) -> list[Problem]:
    """Checks that need the vocabulary or relate fields to each other. The expressions are parsed
    here, once; `parsed` receives them ("" for `semantics.expr`, else the extra output's name)."""
    parsed = {} if parsed is None else parsed
    problems: list[Problem] = []
    sets = {s.id: s for s in targets.instruction_sets}
    profiles = set(targets.profile_names())
    iset = sets.get(spec.instruction_set)
    if iset is None:
        known_sets = sorted(sets)
        problems.append(
            (
                ("instruction_set",),
                f"unknown instruction set {spec.instruction_set!r}"
                f"{did_you_mean(spec.instruction_set, known_sets)} (known: {', '.join(known_sets)})",
            )
        )
    elif spec.qualifier is not None and spec.qualifier != iset.namespace:
        problems.append(
            (
                ("mnemonic",),
                f"{spec.mnemonic} is qualified by {spec.qualifier!r}, but instruction set {iset.id} declares "
                f"{'namespace ' + repr(iset.namespace) if iset.namespace else 'no namespace'}; a key names "
                "its own set's namespace",
            )
        )
    elif spec.mnemonic not in iset.order:
        # A near miss of a listed mnemonic is most likely a misspelling of it; else a new op.
        near = nearest(spec.mnemonic, iset.order)
        add = "add it there where its page belongs in the set"
        what = f"did you mean {near!r}? (a new op: {add})" if near is not None else add
        problems.append(
            (
                ("mnemonic",),
                f"{spec.mnemonic} is not in the `order:` of instruction set {iset.id} in "
                f"{TARGETS_FILE_SHOWN}; {what}",
            )
        )

    operands = {o.name: o for o in spec.operands}
    if len(operands) != len(spec.operands):
        problems.append((("operands",), "operand names must be unique"))
    from ..opkinds import KINDS  # the registry of op kinds (it depends on nothing of this module)

    op_kind = KINDS.get(spec.semantics.kind)
    dsts = [o.name for o in spec.operands if o.role == "dst"]
    writes_domain = op_kind is None or op_kind.writes_domain(spec)
    side = op_kind.facts.side_outputs if op_kind is not None else ()
    written = ([spec.semantics.domain, *spec.semantics.extra_outputs] if writes_domain else []) + [
        o for o in side if o in operands
    ]
    if sorted(dsts) != sorted(written):
        problems.append(
            (("operands",), "the dst operands must be the semantics domain and its extra_outputs")
        )

    if op_kind is None:
        listed = f" (known: {', '.join(KINDS)})"
        problems.append(
            (
                ("semantics", "kind"),
                f"unknown op kind {spec.semantics.kind!r}"
                f"{did_you_mean(spec.semantics.kind, list(KINDS)) or listed}",
            )
        )
    vector = op_kind.lanes if op_kind is not None else iset is not None and iset.kind == "vector"
    runtime_calls = op_kind is not None and op_kind.facts.runtime_calls
    spelled = op_kind is not None and op_kind.facts.spelled
    builtin = iset is not None and (iset.kind == "scalar" or runtime_calls) and not spelled
    value_kinds = {"vreg", "scalar"} if vector else {"tile", "scalar", "global", "events"}
    if op_kind is not None and op_kind.facts.reads_groups:
        value_kinds = value_kinds | {"context"}
    if vector and not any(o.kind == "mask" and o.role == "mask" for o in spec.operands):
        problems.append(
            (("operands",), "a vector op needs its predicate mask (an operand of kind and role `mask`)")
        )
    for i, o in enumerate(spec.operands):
        allowed = (
            {"vreg", "scalar", "mask", "attr"}
            if vector
            else {"scalar", "mask"}
            if builtin or spelled
            else {"tile", "scalar", "attr", "global", "context", "events"}
        )
        if o.kind == "mask" and o.role == "mask" and [p.role for p in spec.operands].count("mask") > 1:
            problems.append((("operands", i, "role"), "an op has one predicate mask"))
        if o.kind not in allowed:
            problems.append(
                (
                    ("operands", i, "kind"),
                    f"{o.kind!r} operands do not belong to a {iset.kind if iset else ''} op",
                )
            )

    enums = {e.name: e for e in targets.enums}
    for i, o in enumerate(spec.operands):
        if o.kind == "attr":
            enum = enums.get(o.enum or "")
            if enum is None:
                problems.append(
                    (("operands", i, "enum"), f"unknown enum {o.enum!r} (declare it in targets.yaml)")
                )
            elif enum.apply is None:
                problems.append((("operands", i, "enum"), f"enum {o.enum!r} has no `apply` semantics"))
    names, attrs = _expr_scope(spec, targets)
    names = {n for n in names if operands[n].kind in value_kinds | {"mask"}}
    try:
        parsed[""] = semantics.parse(spec.semantics.expr, names, attrs)
    except semantics.ExprError as exc:
        problems.append((("semantics", "expr"), str(exc)))
    if op_kind is not None:
        problems.extend(op_kind.check_operands(spec))
    if op_kind is not None and "" in parsed:
        problems.extend((("semantics", "expr"), m) for m in op_kind.check_expr(parsed[""]))
    if spec.semantics.compute is not None and spec.semantics.compute not in operands:
        problems.append((("semantics", "compute"), f"unknown operand {spec.semantics.compute!r}"))
    dom = operands.get(spec.semantics.domain)
    writes = op_kind is None or op_kind.writes_domain(spec)
    if dom is None or (writes and dom.role != "dst"):
        problems.append((("semantics", "domain"), "must name the dst operand"))
    tile_extra = op_kind is not None and op_kind.facts.tile_extra_outputs
    if spec.semantics.extra_outputs and not (vector or tile_extra):
        problems.append(
            (
                ("semantics", "extra_outputs"),
                "only vector ops and tile kinds that allow it have extra outputs",
            )
        )
    for name, text in spec.semantics.extra_outputs.items():
        try:
            parsed[name] = semantics.parse(text, names, attrs)
        except semantics.ExprError as exc:
            problems.append((("semantics", "extra_outputs", name), str(exc)))
    spans = op_kind.facts.folds if op_kind is not None else ()
    if spans and spec.semantics.folds not in spans:
        problems.append((("semantics", "folds"), f"{spec.semantics.kind} ops fold one of {', '.join(spans)}"))
    elif not spans and spec.semantics.folds is not None and op_kind is not None:
        problems.append((("semantics", "folds"), f"{spec.semantics.kind} ops do not fold a span"))
    if vector != (spec.semantics.inactive_lanes is not None):
        problems.append(
            (("semantics", "inactive_lanes"), "vector ops state what inactive lanes hold; tile ops do not")
        )

    if vector and spec.intrinsic is not None:
        problems.append((("intrinsic",), "vector ops have no tile intrinsic"))
    if builtin != (spec.builtin is not None):
        problems.append((("builtin",), "scalar-level ops (and only they) state their runtime `builtin`"))
    if builtin and spec.intrinsic is not None:
        problems.append((("intrinsic",), "scalar-level ops are runtime builtins, not tile intrinsics"))
    if spelled != (spec.spelling is not None):
        problems.append((("spelling",), "IR forms (and only they) state their C++ `spelling`"))
    if spelled and spec.intrinsic is not None:
        problems.append((("intrinsic",), "IR forms are written as their `spelling`, not as intrinsics"))
    if spelled and iset is not None and iset.kind != "scalar":
        problems.append((("semantics", "kind"), "IR forms belong to scalar-level instruction sets"))
    if not vector and not builtin and not spelled and spec.intrinsic is None and iset is not None:
        problems.append((("intrinsic",), "tile ops need their C++ intrinsic"))
    if spec.builtin is not None:
        carried = [p.operand for p in spec.builtin.params]
        returned = spec.builtin.returns != "void"
        if carried != list(operands)[1 if returned else 0 :]:
            problems.append(
                (
                    ("builtin", "params"),
                    "the parameters carry the operands, in their order (after the returned first one)"
                    if returned
                    else "the parameters carry the operands, in their order",
                )
            )
        if returned and spec.operands[0].role != "dst":
            problems.append((("builtin", "returns"), "a builtin returns its first operand, a `dst`"))
        if spec.semantics.domain != spec.operands[0].name:
            problems.append((("semantics", "domain"), "a builtin's domain is its first operand"))
    if spec.intrinsic is not None:
        problems.extend(_check_intrinsic(spec, operands))
        for k, ov in enumerate(spec.intrinsic.overloads, start=1):
            arg = "" in parsed and op_kind is not None and op_kind.arg_value_output(parsed[""])
            if ov.value_output is not None and not arg:
                where = ("intrinsic", "overloads", k - 1, "value_output")
                problems.append((where, "only arg-reductions have one"))
            if ov.expr is None:
                continue
            at = ("intrinsic", "overloads", k - 1, "expr")
            if op_kind is not None and not op_kind.facts.form_exprs:
                problems.append((at, f"overloads of {op_kind.name} ops cannot state their own semantics"))
                continue
            reads_own = op_kind is not None and op_kind.facts.form_operands_in_expr
            extra = {o.name for o in ov.operands if o.kind == "tile"} if reads_own else set()
            try:
                parsed[f"{_FORM}{k}"] = node = semantics.parse(ov.expr, names | extra, attrs)
            except semantics.ExprError as exc:
                problems.append((at, str(exc)))
                continue
            if reads_own and op_kind is not None:
                problems.extend((at, m) for m in op_kind.check_expr(node))
            if "" in parsed and semantics.names_used(node) - extra != semantics.names_used(parsed[""]):
                problems.append((at, "must read the same operands as `semantics.expr`"))

    for i, rule in enumerate(spec.constraints):
        problems.extend(_rule_problems(("constraints", i), rule, spec, targets, profiles))
    from ..opkinds import KINDS

    known_variants = KINDS[spec.semantics.kind].facts.variant_names if spec.semantics.kind in KINDS else ()
    for v, variant in enumerate(spec.variants):
        vat: tuple[str | int, ...] = ("variants", v)
        if variant.name not in known_variants:
            offered = ", ".join(known_variants) or "none"
            problems.append(
                (
                    (*vat, "name"),
                    f"{spec.semantics.kind} ops have no variant {variant.name!r} (known: {offered})",
                )
            )
        if [w.name for w in spec.variants].count(variant.name) > 1:
            problems.append(((*vat, "name"), f"variant {variant.name!r} is stated twice"))
        for i, rule in enumerate(variant.constraints):
            base = (*vat, "constraints", i)
            if not is_static(rule) or form_scoped(rule):
                problems.append(
                    ((*base, "kind"), "a variant's rules are compile-time rules of the main declaration")
                )
            problems.extend(_rule_problems(base, rule, spec, targets, profiles))
    for i, note in enumerate(spec.profile_notes):
        if note.profile is not None and note.profile not in profiles:
            problems.append(
                (
                    ("profile_notes", i, "profile"),
                    f"unknown profile {note.profile!r}{did_you_mean(note.profile, profiles)}",
                )
            )
    for i, pc in enumerate(spec.prose_constraints):
        for j, p in enumerate(pc.profiles or []):
            if p not in profiles:
                problems.append(
                    (
                        ("prose_constraints", i, "profiles", j),
                        f"unknown profile {p!r}{did_you_mean(p, profiles)}",
                    )
                )
    return problems


def _rule_problems(
    base: tuple[str | int, ...], rule: Any, spec: OpSpec, targets: Targets, profiles: Any
) -> list[Problem]:
    """Problems of one rule of the op (`constraints`, or a variant's), located below `base`."""
    problems: list[Problem] = []
    for j, p in enumerate(rule.profiles or []):
        if p not in profiles:
            problems.append(
                (
                    (*base, "profiles", j),
                    f"unknown profile {p!r}{did_you_mean(p, profiles)} "
                    f"(known: {', '.join(sorted(profiles))})",
                )
            )
    # A misspelt operand is the rule's one problem: what the rule would say of the operands
    # it names (that they share a type, say) follows from the misspelling.
    op_names = [o.name for o in spec.every_operand]
    unknown = [(j, n) for j, n in enumerate(rule.rule_operands) if n not in op_names]
    for j, name in unknown:
        problems.append(((*base, "operands", j), f"unknown operand {name!r}{did_you_mean(name, op_names)}"))
    if not unknown:
        problems.extend(((*base, *where), message) for where, message in rule.check(spec, targets))
    return problems


def _check_intrinsic(spec: OpSpec, operands: dict[str, Any]) -> list[Problem]:
    assert spec.intrinsic is not None
    intr = spec.intrinsic
    problems, bound = _check_declaration(("intrinsic",), intr.template, intr.params, operands, intr.guard)
    for i, rule in enumerate(spec.constraints):  # the declarations a rule is limited to exist
        for j, k in enumerate(rule.forms or []):
            if k > len(intr.overloads):
                at = ("constraints", i, "forms", j)
                problems.append(
                    (at, f"no declaration {k}: 0 is the main one, 1..{len(intr.overloads)} overloads")
                )
    for i, p in enumerate(intr.params):
        o = operands.get(p.operand or "")
        if p.from_tile and o is not None and o.kind == "scalar":  # the main form defines each operand
            problems.append(
                (("intrinsic", "params", i, "from_tile"), "only an overload may take a scalar as a tile")
            )
    if intr.tmp_in_events is not None:
        o = operands.get(intr.tmp_in_events)
        if o is None or o.role != "tmp":
            problems.append((("intrinsic", "tmp_in_events"), "must name a tmp operand"))
        bound.add(intr.tmp_in_events)
    for name in operands:
        if name not in bound:
            problems.append((("operands",), f"operand {name!r} is not carried by any intrinsic parameter"))
    problems += _check_dispatch(("intrinsic",), intr.name, intr.template, intr.params, intr.dispatch)
    from ..opkinds import KINDS

    op_kind = KINDS.get(spec.semantics.kind)
    own_plans = op_kind is not None and op_kind.facts.plans_forms
    own_results = op_kind is not None and op_kind.facts.form_results
    for k in range(len(intr.overloads)):
        problems.extend(_check_overload(spec, k, operands, own_plans, own_results))
    return problems


_CPP_WORDS = {"static_cast", "true", "false", "nullptr"}


def _check_dispatch(
    at: tuple[str | int, ...], name: str, template: list[Any], params: list[Any], dispatch: Any
) -> list[Problem]:
    """A declaration's dispatch may name only its own parameters, qualified constants and literals;
    a dispatch to its own `_IMPL` passes parameters only, since the backend function receives them."""
    problems: list[Problem] = []
    at = (*at, "dispatch")
    fparams = {p.name for p in params if not p.events or p.operand is not None}
    values = {t.name for t in template if t.kind == "value"}
    known = fparams | {t.name for t in template if t.kind != "pack"} | _CPP_WORDS
    args = dispatch.args if dispatch.args is not None else [p.name for p in params if not p.events]
    targs = dispatch.template_args if dispatch.template_args is not None else sorted(values)
    for field, exprs in (("template_args", targs), ("args", args)):
        for i, expr in enumerate(exprs):
            casts = set(re.findall(r"static_cast<(\w+)>", expr))
            text = re.sub(r"\w+(?:::\w+)+", "", expr)  # qualified constants, e.g. AtomicType::AtomicNone
            for ident in re.findall(r"\b[A-Za-z_]\w*\b", text):
                if ident not in known and ident not in casts:
                    problems.append(((*at, field, i), f"{ident!r} is not a parameter of this declaration"))
    own = dispatch.impl in (None, name) and dispatch.call != "helper"
    if dispatch.call == "helper" and dispatch.impl is None:
        problems.append(((*at, "impl"), "a `helper` dispatch names the function it calls"))
    if own:
        for i, expr in enumerate(args):
            if expr not in fparams | values:
                problems.append(
                    (
                        (*at, "args", i),
                        f"{expr!r}: a dispatch to the op's own _IMPL passes parameters only "
                        "(name another op in `impl` to reuse its implementation)",
                    )
                )
    if dispatch.roles is not None and len(dispatch.roles) != len(args):
        problems.append(((*at, "roles"), f"give one role per call argument ({len(args)})"))
    return problems


def _check_overload(
    spec: OpSpec, k: int, operands: dict[str, Any], own_plans: bool = False, own_results: bool = False
) -> list[Problem]:
    """An overload carries every operand of the main declaration, plus its own extra operands. A
    kind that plans each form's tests itself (`plans_forms`, TMRGSORT's list forms) may give a form
    operands that change the result, and needs no generic test values for them."""
    assert spec.intrinsic is not None
    intr, ov = spec.intrinsic, spec.intrinsic.overloads[k]
    at: tuple[str | int, ...] = ("intrinsic", "overloads", k)
    own: dict[str, Any] = {}
    problems: list[Problem] = []
    for i, o in enumerate(ov.operands):
        if o.name in operands or o.name in own:
            problems.append(((*at, "operands", i, "name"), f"operand {o.name!r} is already declared"))
        further = own_results and o.kind == "tile"  # a further destination the kind's tests judge
        if (
            o.role == "dst" and o.name != ov.value_output and not own_plans and not further
        ) or o.broadcast is not None:
            problems.append(((*at, "operands", i), "an overload's own operands cannot change the result"))
        own[o.name] = o
    found, bound = _check_declaration(at, ov.template, ov.params, {**operands, **own}, ov.guard)
    problems += found
    main = {p.operand for p in intr.params if p.operand} | (
        {intr.tmp_in_events} if intr.tmp_in_events else set()
    )
    for i, name in enumerate(ov.drops):
        if name not in main:
            problems.append(((*at, "drops", i), f"{name!r} is not an operand of the main declaration"))
        elif name in bound:
            problems.append(((*at, "drops", i), f"{name!r} is carried by this form"))
    for name in sorted(main - bound - set(ov.drops)):
        problems.append(((*at, "params"), f"operand {name!r} of the main declaration is not carried"))
    for name in sorted(set(own) - bound):
        problems.append(((*at, "operands"), f"operand {name!r} is not carried by any parameter"))
    problems += _check_dispatch(at, intr.name, ov.template, ov.params, ov.dispatch)
    values = {t.name for t in ov.template if t.kind == "value"}
    from ..opkinds import KINDS  # the registry of op kinds (it depends on nothing of this module)

    op_kind = KINDS.get(spec.semantics.kind)
    keep_values = op_kind is None or op_kind.facts.overloads_keep_values
    for t in intr.template:
        if t.kind == "value" and t.name not in values and keep_values:
            problems.append(((*at, "template"), f"value template parameter {t.name!r} is missing"))
    if ov.value_output is not None:
        out = own.get(ov.value_output)
        if out is None or out.kind != "tile" or out.role != "dst":
            problems.append(((*at, "value_output"), "must name a destination tile among its own operands"))
    types = {t.name for t in ov.template if t.kind == "typename"}
    for i, name in enumerate(ov.tile_only):
        if name not in types:
            problems.append(((*at, "tile_only", i), f"{name!r} is not a type template parameter"))
    for name in ov.test_args:
        if name not in own or own[name].kind == "tile":
            problems.append(((*at, "test_args"), f"{name!r} is not a non-tile operand of this overload"))
    carried = {t.operand for t in ov.template if t.operand}
    for name, o in own.items():
        if o.kind != "tile" and name not in ov.test_args and name not in carried and not own_plans:
            problems.append(((*at, "test_args"), f"give the value tests pass for {name!r}"))
    main_values = {t.name for t in intr.template if t.kind == "value"}
    own_values = {t.name: t for t in ov.template if t.kind == "value" and t.name not in main_values}
    for name in ov.test_template_args:
        if name not in own_values:
            problems.append(
                (
                    (*at, "test_template_args"),
                    f"{name!r} is not a value template parameter only this form has",
                )
            )
    return problems


def _check_declaration(
    at: tuple[str | int, ...],
    template: list[Any],
    params: list[Any],
    operands: dict[str, Any],
    guard: Sequence[str] = (),
) -> tuple[list[Problem], set[str]]:
    """One C++ declaration against the operands it may carry; returns problems and carried operands."""
    problems: list[Problem] = []
    tparams = {t.name: t for t in template}
    if len(tparams) != len(template):
        problems.append(((*at, "template"), "template parameter names must be unique"))
    if len({p.name for p in params}) != len(params):
        problems.append(((*at, "params"), "parameter names must be unique"))
    packs = [t for t in template if t.kind == "pack"]
    # The events pack is optional (TPREFETCH waits on nothing); when present it comes last.
    if len(packs) > 1 or (packs and template[-1].kind != "pack"):
        problems.append(((*at, "template"), "the last template parameter must be the one `pack`"))
    if packs and (not params or not params[-1].events):
        problems.append(((*at, "params"), "the last parameter must be the events pack"))
    kinds = {t.name: t.kind for t in template}
    for i, name in enumerate(guard):
        if kinds.get(name) not in ("typename", "pack"):
            problems.append(((*at, "guard", i), f"{name!r} is not a type template parameter or the pack"))
    if len(set(guard)) != len(guard):
        problems.append(((*at, "guard"), "a template parameter is guarded twice"))
    bound: set[str] = set()
    for i, t in enumerate(template):
        if t.operand is None:
            continue
        o = operands.get(t.operand)
        if o is None or o.kind not in ("scalar", "attr"):
            problems.append(
                ((*at, "template", i, "operand"), f"{t.operand!r} is not a scalar or attr operand")
            )
        elif o.kind == "attr" and o.enum != t.type:
            problems.append(((*at, "template", i, "type"), f"{t.operand!r} takes {o.enum}"))
        else:
            bound.add(t.operand)
    for i, p in enumerate(params):
        if p.events and p.operand is not None:
            if getattr(operands.get(p.operand), "kind", "") != "events":
                problems.append(
                    ((*at, "params", i, "operand"), "the events pack carries an `events` operand only")
                )
            else:
                bound.add(p.operand)
        if p.attr is not None:
            o = operands.get(p.operand or "")
            if o is None or o.kind != "attr" or o.enum != p.attr:
                problems.append(
                    (
                        (*at, "params", i),
                        f"attribute parameter must carry an attr operand of enum {p.attr}",
                    )
                )
            if p.operand:
                bound.add(p.operand)
            continue
        ref = p.type or p.dtype_of or p.value_type
        t = tparams.get(ref or "")
        if t is None and p.value_type is not None and p.operand in operands:
            bound.add(p.operand)  # a plain C++ type such as `bool`
            continue
        if (
            t is None
            and p.type is not None
            and getattr(operands.get(p.operand or ""), "kind", "") == "context"
        ):
            bound.add(str(p.operand))  # a context object of a fixed class (PrefetchAsyncContext)
            continue
        if t is None:
            problems.append(((*at, "params", i), f"{ref!r} is not a template parameter"))
            continue
        if p.events != (t.kind == "pack"):
            problems.append(((*at, "params", i), "only the events parameter uses the pack"))
        if t.kind == "value":
            problems.append(((*at, "params", i), "a value template parameter is not a type"))
        if p.operand is not None:
            o = operands.get(p.operand)
            if o is None:
                problems.append(((*at, "params", i, "operand"), f"unknown operand {p.operand!r}"))
            elif p.from_tile and o.kind != "scalar":
                problems.append(((*at, "params", i, "from_tile"), "only a scalar can come from a tile"))
            elif (o.kind == "scalar") != (p.dtype_of is not None or p.value_type is not None or p.from_tile):
                problems.append(
                    (
                        (*at, "params", i),
                        "scalars use `dtype_of`, `value_type` or `from_tile`; tiles and tensors `type`",
                    )
                )
            bound.add(p.operand)
    return problems, bound


def _check_tile_type(targets: Targets, doc: LoadedDoc) -> None:
    """The Tile type's facts against the vocabulary: each rule's tiles have known element types and
    each alias names declared profiles (located at the offending key)."""
    if targets.tile_type is None:
        return
    errors = []
    for i, rule in enumerate(targets.tile_type.rules):
        for which in ("broken", "legal"):
            dtype = getattr(rule, which).dtype
            if not targets.has_dtype(dtype):
                path = ("tile_type", "rules", i, which, "dtype")
                hint = did_you_mean(dtype, [s for d in targets.dtypes for s in (d.name, *d.aliases)])
                errors.append(
                    SpecError(*doc.source.where(path), _dotted(path), f"unknown dtype {dtype!r}{hint}")
                )
    names = targets.profile_names()
    for i, alias in enumerate(targets.tile_type.aliases):
        for prof in alias.layouts:
            if prof != "*" and prof not in names:
                path = ("tile_type", "aliases", i, "layouts", prof)
                hint = did_you_mean(prof, names)
                errors.append(
                    SpecError(*doc.source.where(path), _dotted(path), f"unknown profile {prof!r}{hint}")
                )
    if errors:
        raise SpecErrors(errors)


def set_element_bytes(targets: Targets) -> None:
    """sizeof(DType) of every spelling and the elements a unit of a packed one holds, for the test
    plan's tiles (rule_api.TileDecl)."""
    rule_api.ELEMENT_BYTES.clear()
    rule_api.PER_UNIT.clear()
    for d in targets.dtypes:
        size = max(1, d.bits // 8)
        for spelling in (d.name, *d.aliases):
            rule_api.ELEMENT_BYTES[spelling] = size
            if d.per_byte > 1:
                rule_api.PER_UNIT[spelling] = d.per_byte


def spec_context(specs_dir: Path, root: Path | None = None) -> tuple[Targets, opclasses.Context]:
    """The vocabulary and what specs may refer to (classes, sets), without loading the ops."""
    root = root or specs_dir.parent
    targets_file = specs_dir / TARGETS_FILE
    cache = root / ".ptogen-cache" / "yaml"
    targets_doc = opclasses.inherit_profiles(load_yaml(targets_file, display_path(targets_file, root), cache))
    targets: Targets = _parse_model(Targets, targets_doc)
    return targets, opclasses.load_context(
        targets, targets_doc, specs_dir / opclasses.CLASSES_DIR, root, cache
    )


def resolve_file(
    path: Path, specs_dir: Path, root: Path | None = None
) -> tuple[Any, dict[tuple[str | int, ...], Node]]:
    """One spec file's data with its class, sets and derived facts filled in, and where each
    fact came from (`ptogen show`, the import round trip)."""
    root = root or specs_dir.parent
    _targets, context = spec_context(specs_dir, root)
    doc, origins = resolve(load_yaml(path, display_path(path, root)), context)
    return doc.data, origins
