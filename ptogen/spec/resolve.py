"""Resolve a spec file against the facts it refers to: its op class, named dtype sets, the
`dtypes:` shorthand and the name-derived defaults.

The result is the plain data the OpSpec model validates, plus where every fact came from: each
node of the resolved tree remembers its file, line and origin (`spec`, `class <name>`,
`set <name>`, `derived`), so a Pydantic error in a fact a class supplied is reported at the
class file's line, and `ptogen show OP` can print the provenance of every field.

Merge rules (the same for a spec over its class and a class over the class it extends):
- mappings merge key by key, the more specific file winning;
- lists of named mappings (operands, template and function parameters) merge by `name`: an entry
  that names an inherited one refines it, a new name is appended;
- `constraints` fill the class's slots: `{slot: dtypes}` takes the rules the `dtypes:` shorthand
  expands to, `{slot: own}` the spec's own `constraints:` (without slots: dtypes first, own last);
- any other list is replaced whole.
Strings a class supplies may name the op: `${short}` (tmaxs), `${SHORT}` (TMAXS), `${mnemonic}`
(pto.tmaxs), `${Camel}` (TMaxS, split on targets.yaml's `name_words`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import SpecError, did_you_mean
from ..rules import RULE_KINDS
from ..rules.parts import Shorthand
from .loader import LoadedDoc, PathKey, SourceMap

# The rule kind whose rules a spec's `dtypes:` mapping states.
SHORTHAND = next(k for k in RULE_KINDS if issubclass(k, Shorthand) and k.shorthand == "dtypes")

SPEC = "spec"
DERIVED = "derived"
# Keys a spec (or a class's `spec:`) may hold beyond the OpSpec model's own fields.
SHORTHAND_KEYS = ("class", "dtypes")
PLACEHOLDER = re.compile(r"\$\{(short|SHORT|mnemonic|Camel)\}")
NAMED_LISTS = ("operands", "template", "params")


@dataclass
class Node:
    """One value of the resolved tree with the place it was written."""

    value: Any  # dict[str, Node] | list[Node] | scalar
    file: str
    line: int | None
    origin: str


def annotate(data: Any, source: SourceMap, origin: str, path: PathKey = (), line: int | None = None) -> Node:
    here = source.lines.get(path, line)
    if isinstance(data, dict):
        return Node(
            {k: annotate(v, source, origin, (*path, k), here) for k, v in data.items()},
            source.file,
            here,
            origin,
        )
    if isinstance(data, list):
        return Node(
            [annotate(v, source, origin, (*path, i), here) for i, v in enumerate(data)],
            source.file,
            here,
            origin,
        )
    return Node(data, source.file, here, origin)


def plain(node: Node) -> Any:
    if isinstance(node.value, dict):
        return {k: plain(v) for k, v in node.value.items()}
    if isinstance(node.value, list):
        return [plain(v) for v in node.value]
    return node.value


def _flatten(node: Node, path: PathKey, out: dict[PathKey, Node]) -> None:
    out[path] = node
    if isinstance(node.value, dict):
        for k, v in node.value.items():
            _flatten(v, (*path, k), out)
    elif isinstance(node.value, list):
        for i, v in enumerate(node.value):
            _flatten(v, (*path, i), out)


def substitute(node: Node, names: dict[str, str]) -> Node:
    """Every `${short}`, `${SHORT}`, `${mnemonic}` and `${Camel}` in a node's strings -> the op's name."""
    if isinstance(node.value, dict):
        return Node(
            {k: substitute(v, names) for k, v in node.value.items()}, node.file, node.line, node.origin
        )
    if isinstance(node.value, list):
        return Node([substitute(v, names) for v in node.value], node.file, node.line, node.origin)
    if isinstance(node.value, str) and "${" in node.value:
        return Node(
            PLACEHOLDER.sub(lambda m: names[m.group(1)], node.value), node.file, node.line, node.origin
        )
    return node


def _named(items: list[Node]) -> bool:
    return all(isinstance(i.value, dict) and isinstance(i.value.get("name"), Node) for i in items)


def merge(base: Node, over: Node, key: str | None = None) -> Node:
    """`over` (the more specific file) on top of `base`."""
    if isinstance(base.value, dict) and isinstance(over.value, dict):
        out = dict(base.value)
        for k, v in over.value.items():
            if v.value is None and k in out:
                del out[k]  # an explicit `key: null` drops what the class states
            else:
                out[k] = merge(out[k], v, k) if k in out else v
        return Node(out, over.file, over.line, over.origin)
    if (
        key in NAMED_LISTS
        and isinstance(base.value, list)
        and isinstance(over.value, list)
        and _named(base.value)
        and _named(over.value)
    ):
        items = list(base.value)
        index = {i.value["name"].value: n for n, i in enumerate(items)}
        for item in over.value:
            name = item.value["name"].value
            if name in index:
                items[index[name]] = merge(items[index[name]], item)
            else:
                items.append(item)
        return Node(items, over.file, over.line, over.origin)
    return over


# ----------------------------------------------------------------------------- the resolver


@dataclass
class ClassDoc:
    """A loaded class file (`specs/classes/<name>.yaml`)."""

    name: str
    path: str
    doc: LoadedDoc
    extends: str | None
    rule_operands: list[str]
    description: str


@dataclass
class Context:
    """What resolution reads besides the spec: classes, named sets, profiles, name words."""

    classes: dict[str, ClassDoc]
    sets: dict[str, list[str]]
    set_lines: dict[str, tuple[str, int | None]]
    profiles: list[str]
    name_words: list[str]
    default_headers: dict[str, str] = field(default_factory=dict)  # profile -> pattern
    parents: dict[str, str] = field(default_factory=dict)  # profile -> the profile it extends
    texts: dict[str, str] = field(default_factory=dict)  # named prose: `{shared: name}`
    kernel: tuple[str, str, int] | None = None  # before, after, indent of a `kernel:` example
    asm_types: dict[str, str] = field(default_factory=dict)  # operand kind -> default asm_type
    text_lines: dict[str, tuple[str, int | None]] = field(default_factory=dict)
    # A cube tile alias's box layout per profile ("*": every other one), and the alias's place.
    tile_layouts: dict[str, dict[str, tuple[str, str]]] = field(default_factory=dict)
    tile_lines: dict[str, tuple[str, int | None]] = field(default_factory=dict)

    def chain(self, name: str) -> list[ClassDoc]:
        """The class and those it extends, most general first."""
        out: list[ClassDoc] = []
        seen: set[str] = set()
        while name and name not in seen:
            seen.add(name)
            cls = self.classes[name]
            out.insert(0, cls)
            name = cls.extends or ""
        return out


def camel(name: str, words: list[str]) -> str:
    """`TROWEXPANDADD` -> `TRowExpandAdd`: the longest known word at each position (a letter
    without one stays upper case)."""
    upper = sorted({w.upper(): w for w in words}.items(), key=lambda kv: -len(kv[0]))
    out, i = "", 0
    if name.startswith("T"):
        out, i = "T", 1
    while i < len(name):
        for up, word in upper:
            if name.startswith(up, i):
                out += word
                i += len(up)
                break
        else:
            out += name[i]
            i += 1
    return out


def op_names(mnemonic: str, words: list[str]) -> dict[str, str]:
    short = mnemonic.rsplit(".", 1)[-1]
    return {
        "short": short,
        "SHORT": short.upper(),
        "mnemonic": mnemonic,
        "Camel": camel(short.upper(), words),
    }


def _error(node: Node | None, file: str, field_: str, message: str) -> SpecError:
    if node is None:
        return SpecError(file, 1, field_, message)
    return SpecError(node.file, node.line, field_, message)


def _expand_dtypes(spec: Node, rule_operands: list[str], ctx: Context) -> list[Node]:
    """The `dtypes:` shorthand -> dtype rules over the class's `rule_operands`, one per key
    (`A2A3`, `A2A3 A5` for a rule of two profiles, `"*"` for a rule of every profile)."""
    short = spec.value.get("dtypes")
    if short is None:
        return []
    if not isinstance(short.value, dict):
        raise _error(short, short.file, "dtypes", "give a mapping of profiles to dtype lists or set names")
    if not rule_operands:
        raise _error(
            short, short.file, "dtypes", "the shorthand needs a class that names its `rule_operands`"
        )
    rules = []
    for key, value in short.value.items():
        profiles = [] if key == "*" else str(key).split()
        for p in profiles:
            if p not in ctx.profiles:
                hint = did_you_mean(p, ctx.profiles)
                raise _error(value, value.file, f"dtypes.{key}", f"unknown profile {p!r}{hint}")
        data = SHORTHAND.from_shorthand(profiles, rule_operands, None)
        rule = annotate(data, SourceMap(value.file, {(): value.line} if value.line else {}), value.origin)
        rule.value["dtypes"] = value  # its own place: a list, or a set's name expanded later
        rules.append(rule)
    return rules


def _kinds_with_operands() -> set[str]:
    out: set[str] = set()
    for cls in RULE_KINDS:
        if "operands" in cls.model_fields:
            out.update(getattr(cls.model_fields["kind"].annotation, "__args__", ()))
    return out


KINDS_WITH_OPERANDS = _kinds_with_operands()


def _default_operands(rules: Node | None, operands: list[str]) -> None:
    """A rule that names no operands constrains the class's `rule_operands`."""
    if rules is None or not operands or not isinstance(rules.value, list):
        return
    for rule in rules.value:
        if not isinstance(rule.value, dict) or "operands" in rule.value:
            continue
        kind = rule.value.get("kind")
        if kind is not None and kind.value in KINDS_WITH_OPERANDS:
            rule.value["operands"] = Node(
                [Node(o, rule.file, rule.line, rule.origin) for o in operands],
                rule.file,
                rule.line,
                rule.origin,
            )


def _slot(item: Node) -> str | None:
    if isinstance(item.value, dict) and set(item.value) == {"slot"}:
        return str(item.value["slot"].value)
    return None


def _fill_constraints(
    class_rules: Node | None, dtypes: list[Node], own: Node | None, file: str
) -> Node | None:
    own_items = own.value if own is not None and isinstance(own.value, list) else []
    if class_rules is None:
        joined = [*dtypes, *own_items]
        if not joined and own is None:
            return None
        anchor = own or (dtypes[0] if dtypes else None)
        return Node(
            joined,
            anchor.file if anchor else file,
            anchor.line if anchor else None,
            anchor.origin if anchor else SPEC,
        )
    template = list(class_rules.value)
    slots = [_slot(i) for i in template]
    if "dtypes" not in slots:
        template.insert(0, Node({"slot": Node("dtypes", file, None, SPEC)}, file, None, SPEC))
    if "own" not in [_slot(i) for i in template]:
        template.append(Node({"slot": Node("own", file, None, SPEC)}, file, None, SPEC))
    items: list[Node] = []
    for item in template:
        slot = _slot(item)
        if slot == "dtypes":
            items.extend(dtypes)
        elif slot == "own":
            items.extend(own_items)
        else:
            items.append(item)
    anchor = own or class_rules
    return Node(items, anchor.file, anchor.line, anchor.origin)


def _expand_sets(rules: Node | None, ctx: Context) -> None:
    """A rule's `dtypes: <set name>` -> the set's list (each element remembers the set)."""
    if rules is None or not isinstance(rules.value, list):
        return
    for i, rule in enumerate(rules.value):
        if not isinstance(rule.value, dict):
            continue
        dt = rule.value.get("dtypes")
        if dt is None or not isinstance(dt.value, str):
            continue
        name = dt.value
        if name not in ctx.sets:
            raise _error(
                dt,
                dt.file,
                f"constraints[{i}].dtypes",
                f"unknown dtype set {name!r}{did_you_mean(name, list(ctx.sets))}",
            )
        file, line = ctx.set_lines[name]
        origin = f"set {name}"
        rule.value["dtypes"] = Node(
            [Node(t, file, line, origin) for t in ctx.sets[name]], dt.file, dt.line, origin
        )


def expand_box_layouts(rules: Node | None, ctx: Context) -> None:
    """A `tile_fractal` rule naming a cube tile alias (`tile: TileLeft`) instead of a layout -> one
    rule per layout the alias takes under the rule's profiles, each limited to those profiles: the
    box layouts are stated once, on the aliases (targets.yaml)."""
    if rules is None or not isinstance(rules.value, list):
        return
    out: list[Node] = []
    for i, rule in enumerate(rules.value):
        data = rule.value if isinstance(rule.value, dict) else {}
        tile = data.get("tile")
        if data.get("kind") is None or plain(data["kind"]) != "tile_fractal" or tile is None:
            out.append(rule)
            continue
        name = plain(tile)
        if name not in ctx.tile_layouts:
            hint = did_you_mean(str(name), list(ctx.tile_layouts))
            raise _error(tile, tile.file, f"constraints[{i}].tile", f"unknown tile alias {name!r}{hint}")
        layouts = ctx.tile_layouts[name]
        listed = [str(p) for p in plain(data["profiles"])] if "profiles" in data else ctx.profiles
        groups: dict[tuple[str, str], list[str]] = {}
        for profile in listed:
            groups.setdefault(layouts.get(profile, layouts["*"]), []).append(profile)
        file, line = ctx.tile_lines[name]
        origin = f"tile alias {name}"
        for (blayout, slayout), profiles in groups.items():
            clone = Node(dict(data), rule.file, rule.line, rule.origin)
            clone.value["blayout"] = Node(blayout, file, line, origin)
            clone.value["slayout"] = Node(slayout, file, line, origin)
            named = [Node(p, file, line, origin) for p in profiles]
            clone.value["profiles"] = Node(named, file, line, origin)
            out.append(clone)
    rules.value = out


def _identity(rule: dict[str, Any]) -> str:
    """Rules with the same identity state the same fact; a profile's own one replaces the one it
    would inherit."""
    return repr((rule.get("kind"), rule.get("operands"), rule.get("when"), rule.get("forms")))


def _inherit_rules(rules: Node, ctx: Context) -> None:
    """A rule of a profile applies to the profiles that extend it, unless the op states a rule
    of the same identity for the extending profile itself."""
    if not ctx.parents or not isinstance(rules.value, list):
        return
    items = [r for r in rules.value if isinstance(r.value, dict)]
    own: dict[str, set[str]] = {}
    for r in items:
        data = plain(r)
        for p in data.get("profiles") or []:
            own.setdefault(str(p), set()).add(_identity(data))
    for child in ctx.profiles:
        if child not in ctx.parents:
            continue
        chain, parent = [], ctx.parents.get(child)
        while parent is not None and parent not in chain:
            chain.append(parent)
            parent = ctx.parents.get(parent)
        out: list[Node] = []
        for r in rules.value:
            out.append(r)
            if not isinstance(r.value, dict):
                continue
            data = plain(r)
            names = [str(p) for p in data.get("profiles") or []]
            if not names or child in names or not set(chain) & set(names):
                continue
            if _identity(data) in own.get(child, set()):
                continue
            # The child's own copy, right after the rule it inherits (a rule may name one profile).
            origin = f"profile {child} extends {chain[0]}"
            clone = annotate(data, SourceMap(r.file, {(): r.line} if r.line else {}), origin)
            clone.value["profiles"] = Node([Node(child, r.file, r.line, origin)], r.file, r.line, origin)
            out.append(clone)
        rules.value = out


def resolve(doc: LoadedDoc, ctx: Context) -> tuple[LoadedDoc, dict[PathKey, Node]]:
    """The spec's resolved data with a SourceMap that locates class-supplied facts in their
    class file, and the provenance of every path."""
    if not isinstance(doc.data, dict):
        return doc, {}
    spec = annotate(doc.data, doc.source, SPEC)
    file = doc.source.file
    class_node = spec.value.get("class")
    mnemonic = doc.data.get("mnemonic")
    names = op_names(mnemonic if isinstance(mnemonic, str) else "pto.unknown", ctx.name_words)
    base: Node | None = None
    rule_operands: list[str] = []
    if class_node is not None:
        name = class_node.value
        if not isinstance(name, str) or name not in ctx.classes:
            raise _error(
                class_node,
                file,
                "class",
                f"unknown op class {name!r}{did_you_mean(str(name), list(ctx.classes))} "
                "(classes live in specs/classes/)",
            )
        for cls in ctx.chain(name):
            body = cls.doc.data.get("spec") or {}
            node = annotate(body, _shifted(cls.doc.source, "spec"), f"class {cls.name}")
            node = substitute(node, names)
            base = node if base is None else merge(base, node)
            rule_operands = cls.rule_operands or rule_operands
    own_rules = spec.value.get("constraints")
    dtypes = _expand_dtypes(spec, rule_operands, ctx)
    class_rules = base.value.get("constraints") if base is not None else None
    body = {k: v for k, v in spec.value.items() if k not in (*SHORTHAND_KEYS, "constraints")}
    top = Node(body, file, 1, SPEC)
    resolved = (
        top
        if base is None
        else merge(Node({k: v for k, v in base.value.items() if k != "constraints"}, file, 1, SPEC), top)
    )
    rules = _fill_constraints(class_rules, dtypes, own_rules, file)
    spelled: dict[PathKey, str] = {}
    if rules is not None:
        labels = _rule_labels(spec, dtypes, own_rules, class_rules)
        _default_operands(rules, rule_operands)
        _expand_sets(rules, ctx)
        expand_box_layouts(rules, ctx)
        _inherit_rules(rules, ctx)
        resolved.value["constraints"] = rules
        for i, rule in enumerate(rules.value):
            kind = rule.value.get("kind") if isinstance(rule.value, dict) else None
            label = labels.get(id(kind)) if kind is not None else None
            if label is not None:
                spelled[("constraints", i)] = label
                if label.startswith("dtypes."):  # the shorthand's value is the rule's list
                    spelled[("constraints", i, "dtypes")] = label
    _derive(resolved, names, ctx)
    resolved = shared_texts(resolved, ctx, "", names)
    _kernels(resolved, ctx)
    resolved = Node(resolved.value, file, 1, SPEC)
    flat: dict[PathKey, Node] = {}
    _flatten(resolved, (), flat)
    lines = {p: n.line for p, n in flat.items() if n.file == file and n.line is not None}
    files = {p: (n.file, n.line) for p, n in flat.items() if n.file != file}
    lines[()] = 1
    return LoadedDoc(plain(resolved), SourceMap(file, lines, files, spelled)), flat


def _rule_labels(
    spec: Node, dtypes: list[Node], own: Node | None, class_rules: Node | None
) -> dict[int, str]:
    """How the spec's writer names each rule before resolution reorders them, keyed by the identity of
    its `kind` node (which the rule keeps through the expansions): `dtypes.A5` for a rule of the
    shorthand, `constraints[k]` for the k-th rule the spec (or, for its rules, the class) lists."""
    labels: dict[int, str] = {}
    short = spec.value.get("dtypes")
    keys = list(short.value) if short is not None and isinstance(short.value, dict) else []
    for key, rule in zip(keys, dtypes, strict=False):
        labels[id(rule.value.get("kind"))] = f"dtypes.{key}"
    for source in (class_rules, own):  # the spec's own rules last: a label names the spec's place
        items = source.value if source is not None and isinstance(source.value, list) else []
        for k, rule in enumerate(items):
            if isinstance(rule.value, dict) and "kind" in rule.value:
                labels[id(rule.value["kind"])] = f"constraints[{k}]"
    return labels


TEXT_REF = re.compile(r"\$\{text:([a-z][a-z0-9_]*)\}")


def shared_texts(node: Node, ctx: Context, where: str, names: dict[str, str] | None = None) -> Node:
    """`${text:name}` in any string -> the named text of targets.yaml's `texts:`, which may name
    the op as a class does (`${SHORT}`)."""
    if isinstance(node.value, dict):
        node.value = {
            k: shared_texts(v, ctx, f"{where}.{k}" if where else k, names) for k, v in node.value.items()
        }
    elif isinstance(node.value, list):
        node.value = [shared_texts(v, ctx, f"{where}[{i}]", names) for i, v in enumerate(node.value)]
    elif isinstance(node.value, str) and "${text:" in node.value:
        for name in TEXT_REF.findall(node.value):
            if name not in ctx.texts:
                hint = did_you_mean(name, list(ctx.texts))
                raise _error(node, node.file, where, f"unknown shared text {name!r}{hint}")
        whole = TEXT_REF.fullmatch(node.value)
        text = TEXT_REF.sub(lambda m: ctx.texts[m.group(1)], node.value)
        if names is not None:
            text = PLACEHOLDER.sub(lambda m: names[m.group(1)], text)
        if whole:  # the whole value is one text: locate it there
            file, line = ctx.text_lines[whole.group(1)]
            return Node(text, file, line, f"text {whole.group(1)}")
        return Node(text, node.file, node.line, node.origin)
    return node


def kernel_code(body: str, kernel: tuple[str, str, int]) -> str:
    before, after, indent = kernel
    pad = " " * indent
    lines = [pad + line if line.strip() else line for line in body.splitlines(keepends=True)]
    return before + "".join(lines) + after


def _kernels(resolved: Node, ctx: Context) -> None:
    """An example written as `{kernel: body}` is a compiled C++ example of the standard file."""
    examples = resolved.value.get("examples")
    if examples is None or not isinstance(examples.value, list):
        return
    for i, ex in enumerate(examples.value):
        if not isinstance(ex.value, dict) or set(ex.value) != {"kernel"}:
            continue
        body = ex.value["kernel"]
        if ctx.kernel is None:
            raise _error(body, body.file, f"examples[{i}].kernel", "targets.yaml states no `example_kernel`")
        if not isinstance(body.value, str):
            raise _error(body, body.file, f"examples[{i}].kernel", "give the function body as text")
        code = kernel_code(body.value, ctx.kernel)
        examples.value[i] = Node(
            {
                "lang": Node("cpp", body.file, body.line, body.origin),
                "compiles": Node(True, body.file, body.line, body.origin),
                "code": Node(code, body.file, body.line, body.origin),
            },
            ex.file,
            ex.line,
            ex.origin,
        )


def _shifted(source: SourceMap, prefix: str) -> SourceMap:
    """A class file's line map seen from inside its `spec:` mapping."""
    return SourceMap(source.file, {p[1:]: line for p, line in source.lines.items() if p[:1] == (prefix,)})


def operand_lists(data: Any) -> list[Any]:
    """The operand lists of a spec: the main declaration's and each overload's own."""
    lists = [data.get("operands")] if isinstance(data, dict) else []
    intr = data.get("intrinsic") if isinstance(data, dict) else None
    for ov in (intr.get("overloads") or []) if isinstance(intr, dict) else []:
        if isinstance(ov, dict):
            lists.append(ov.get("operands"))
    return [x for x in lists if isinstance(x, list)]


def _asm_defaults(resolved: Node, ctx: Context) -> None:
    """An operand's assembly type follows from its kind unless stated (targets.yaml `asm_types`)."""
    if not ctx.asm_types:
        return
    lists = [resolved.value.get("operands")]
    intr = resolved.value.get("intrinsic")
    forms = intr.value.get("overloads") if intr is not None and isinstance(intr.value, dict) else None
    if forms is not None and isinstance(forms.value, list):
        lists += [ov.value.get("operands") for ov in forms.value if isinstance(ov.value, dict)]
    for ops in lists:
        if ops is None or not isinstance(ops.value, list):
            continue
        for o in ops.value:
            kind = o.value.get("kind") if isinstance(o.value, dict) else None
            if kind is not None and "asm_type" not in o.value and kind.value in ctx.asm_types:
                o.value["asm_type"] = Node(ctx.asm_types[kind.value], o.file, o.line, DERIVED)


def _derive(resolved: Node, names: dict[str, str], ctx: Context) -> None:
    """Facts that follow from the op's name unless stated: the backend header per profile."""
    _asm_defaults(resolved, ctx)
    intr = resolved.value.get("intrinsic")
    if intr is None or not isinstance(intr.value, dict) or not ctx.default_headers:
        return
    if "backend_headers" in intr.value:
        return
    heads = {
        p: PLACEHOLDER.sub(lambda m: names[m.group(1)], pattern) for p, pattern in ctx.default_headers.items()
    }
    intr.value["backend_headers"] = Node(
        {p: Node(h, intr.file, intr.line, DERIVED) for p, h in heads.items()}, intr.file, intr.line, DERIVED
    )
