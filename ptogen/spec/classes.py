"""Op classes (`specs/classes/<name>.yaml`) and the rest of what a spec may refer to: the
context `resolve` reads, and profile inheritance in targets.yaml.

A class file states the facts a family of ops shares (operands, intrinsic template and
parameters, common rules, tolerance, exceptions, side effects) under `spec:`, in the same
fields as an op spec; it may extend another class. It has its own schema (`ptogen schema class`).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, model_validator

from ..errors import SpecError, SpecErrors, collected, did_you_mean
from .fields import Name, Prose, Strict
from .loader import LoadedDoc, SourceMap, display_path, load_yaml
from .model import OpSpec, Targets
from .resolve import SHORTHAND_KEYS, ClassDoc, Context

CLASSES_DIR = "classes"
# What a class may state: every op spec field but the op's identity.
CLASS_FIELDS = sorted(set(OpSpec.model_fields) - {"mnemonic"})


class OpClassFile(Strict):
    """One op class: the facts a family of ops shares, stated once."""

    name: Name = Field(description="the class's name, as specs write it in `class:`; the file's name too")
    description: Prose
    extends: Name | None = Field(default=None, description="a class whose facts this one starts from")
    rule_operands: list[Name] = Field(
        default_factory=list,
        description="operands of a rule that names none, and of the `dtypes:` shorthand (e.g. [dst, src])",
    )
    spec: dict[str, Any] = Field(
        default_factory=dict,
        description="op spec fields the class supplies; strings may use ${short}, ${SHORT}, ${mnemonic} "
        "and ${Camel}; `constraints` may hold `{slot: dtypes}` and `{slot: own}`",
    )

    @model_validator(mode="after")
    def _fields(self) -> OpClassFile:
        for key in self.spec:
            if key not in CLASS_FIELDS:
                raise ValueError(
                    f"a class cannot state {key!r}{did_you_mean(key, CLASS_FIELDS)} "
                    "(it states op spec fields other than the mnemonic)"
                )
        return self


def inherit_profiles(doc: LoadedDoc) -> LoadedDoc:
    """targets.yaml with each `extends:` profile filled in from the profile it extends (its own
    fields win), before validation; the lines stay those of the file."""
    data = doc.data
    if not isinstance(data, dict) or not isinstance(data.get("profiles"), list):
        return doc
    profiles = data["profiles"]
    by_name = {p.get("name"): p for p in profiles if isinstance(p, dict)}
    out = []
    for i, p in enumerate(profiles):
        if not isinstance(p, dict) or p.get("extends") is None:
            out.append(p)
            continue
        chain: list[dict[str, Any]] = [p]
        parent = p.get("extends")
        while isinstance(parent, str) and parent in by_name and by_name[parent] not in chain:
            chain.append(by_name[parent])
            parent = by_name[parent].get("extends")
        if isinstance(parent, str) and parent not in by_name:
            raise SpecError(
                doc.source.file,
                doc.source.line_of(("profiles", i, "extends")),
                f"profiles[{i}].extends",
                f"unknown profile {parent!r}{did_you_mean(parent, [str(n) for n in by_name])}",
            )
        merged: dict[str, Any] = {}
        for q in reversed(chain):
            merged.update({k: v for k, v in q.items() if k != "extends"})
        merged["extends"] = p["extends"]
        out.append(merged)
    return LoadedDoc({**data, "profiles": out}, doc.source)


def _load_class(path: Path, display: str, cache: Path | None) -> tuple[ClassDoc, list[SpecError]]:
    doc = load_yaml(path, display, cache)
    if not isinstance(doc.data, dict):
        raise SpecErrors([SpecError(display, 1, "", "a class file must be a YAML mapping")])
    try:
        model = OpClassFile.model_validate(doc.data)
    except ValidationError as exc:
        errors = []
        for err in exc.errors():
            loc = tuple(p for p in err["loc"] if isinstance(p, (str, int)))
            field = ".".join(str(p) for p in loc)
            message = (
                f"unknown field{did_you_mean(str(loc[-1]), list(OpClassFile.model_fields))}"
                if err["type"] == "extra_forbidden"
                else err["msg"].removeprefix("Value error, ")
            )
            errors.append(SpecError(*doc.source.where(loc), field, message))
        raise SpecErrors(errors) from None
    problems = []
    if model.name != path.stem:
        problems.append(
            SpecError(
                display,
                doc.source.line_of(("name",)),
                "name",
                f"class {model.name!r} must live in {model.name}.yaml",
            )
        )
    for key in SHORTHAND_KEYS:
        if key in model.spec:
            problems.append(
                SpecError(
                    display,
                    doc.source.line_of(("spec", key)),
                    f"spec.{key}",
                    f"`{key}:` is a spec's shorthand; a class uses `extends` and `rule_operands`",
                )
            )
    cls = ClassDoc(model.name, display, doc, model.extends, model.rule_operands, model.description)
    return cls, problems


def load_context(
    targets: Targets, targets_doc: LoadedDoc, classes_dir: Path, root: Path, cache: Path | None
) -> Context:
    """Classes, named dtype sets and name-derived defaults; SpecErrors for a bad class file."""
    classes: dict[str, ClassDoc] = {}
    errors: list[SpecError] = []
    for path in sorted(classes_dir.glob("*.yaml")) if classes_dir.is_dir() else []:
        loaded = collected(errors, partial(_load_class, path, display_path(path, root), cache))
        if loaded is None:
            continue
        cls, problems = loaded
        errors.extend(problems)
        classes[cls.name] = cls
    for cls in classes.values():
        seen = [cls.name]
        parent = cls.extends
        while parent is not None:
            problem = None
            if parent not in classes:
                problem = f"unknown class {parent!r}{did_you_mean(parent, list(classes))}"
            elif parent in seen:
                problem = f"classes extend each other in a circle: {' -> '.join([*seen, parent])}"
            if problem is not None:
                errors.append(SpecError(cls.path, cls.doc.source.line_of(("extends",)), "extends", problem))
                break
            seen.append(parent)
            parent = classes[parent].extends
    if errors:
        raise SpecErrors(errors)
    source: SourceMap = targets_doc.source
    set_lines = {name: (source.file, source.line_of(("dtype_sets", name))) for name in targets.dtype_sets}
    aliases = targets.tile_type.aliases if targets.tile_type is not None else []
    return Context(
        classes=classes,
        sets={k: list(v) for k, v in targets.dtype_sets.items()},
        set_lines=set_lines,
        profiles=targets.profile_names(),
        name_words=list(targets.name_words),
        default_headers={p.name: p.backend_header for p in targets.profiles if p.backend_header},
        parents={p.name: p.extends for p in targets.profiles if p.extends},
        texts=dict(targets.texts),
        asm_types={str(k): v for k, v in targets.asm_types.items()},
        kernel=(
            (targets.example_kernel.before, targets.example_kernel.after, targets.example_kernel.indent)
            if targets.example_kernel
            else None
        ),
        text_lines={name: (source.file, source.line_of(("texts", name))) for name in targets.texts},
        tile_layouts={
            a.name: {p: (lay.blayout, lay.slayout) for p, lay in a.layouts.items()}
            for a in aliases
        },
        tile_lines={
            a.name: (source.file, source.line_of(("tile_type", "aliases", k, "layouts")))
            for k, a in enumerate(aliases)
        },
    )


def _loosen(node: Any, keep_required: bool = False) -> Any:
    """A schema in which every field may be left to a class; a rule's `dtypes` may name a set."""
    if isinstance(node, dict):
        out = {k: _loosen(v) for k, v in node.items() if keep_required or k != "required"}
        props = out.get("properties")
        if isinstance(props, dict) and isinstance(props.get("dtypes"), dict) and "kind" in props:
            props["dtypes"] = {
                "anyOf": [props["dtypes"], {"type": "string", "description": "a named dtype set"}]
            }
        extra = out.get("additionalProperties")
        if isinstance(extra, dict):
            out["additionalProperties"] = {"anyOf": [extra, {"type": "null"}]}
        if isinstance(out.get("patternProperties"), dict):
            out["patternProperties"] = {
                k: {"anyOf": [v, {"type": "null"}]} for k, v in out["patternProperties"].items()
            }
        if isinstance(props, dict):  # `field: null` drops what a class states
            out["properties"] = {k: {"anyOf": [v, {"type": "null"}]} for k, v in props.items()}
        return out
    if isinstance(node, list):
        return [_loosen(v) for v in node]
    return node


_SHORTHAND_SCHEMA = {
    "class": {
        "type": "string",
        "description": "the op class (specs/classes/<name>.yaml) whose facts this spec starts from",
    },
    "dtypes": {
        "type": "object",
        "description": "dtype rules over the class's rule_operands: profile names (space-separated, or * for "
        "every profile) -> a list of dtypes or a dtype set's name",
        "additionalProperties": {
            "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}]
        },
    },
}


_KERNEL = {
    "type": "object",
    "properties": {"kernel": {"type": "string", "description": "a compiled C++ example's function body"}},
    "required": ["kernel"],
    "additionalProperties": False,
}


def spec_file_schema() -> dict[str, Any]:
    """JSON Schema of an op spec file as written: fields a class supplies may be left out."""
    schema = _loosen(OpSpec.model_json_schema())
    schema["required"] = ["mnemonic"]
    schema["properties"].update(_SHORTHAND_SCHEMA)
    examples = schema["properties"]["examples"]["anyOf"][0]  # [the list, null]
    examples["items"] = {"anyOf": [examples["items"], _KERNEL]}
    return schema


def class_file_schema() -> dict[str, Any]:
    """JSON Schema of a class file; its `spec:` holds op spec fields, constraints may hold slots."""
    spec = spec_file_schema()
    defs = spec.pop("$defs", {})
    spec.pop("required", None)
    for key in ("mnemonic", "class", "dtypes"):
        spec["properties"].pop(key, None)
    rules = spec["properties"]["constraints"]["anyOf"][0]  # [the list, null]
    slot = {
        "type": "object",
        "properties": {"slot": {"enum": ["dtypes", "own"]}},
        "required": ["slot"],
        "additionalProperties": False,
    }
    items = rules.get("items", {})
    rules["items"] = {"anyOf": [items, slot]}
    schema = OpClassFile.model_json_schema()
    schema["properties"]["spec"] = spec
    # Strings of a class may hold ${...} placeholders, so patterns are checked after resolution.
    schema.setdefault("$defs", {}).update(_no_patterns(defs))
    schema["properties"]["spec"] = _no_patterns(spec)
    return schema


def _no_patterns(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _no_patterns(v) for k, v in node.items() if not (k == "pattern" and isinstance(v, str))}
    if isinstance(node, list):
        return [_no_patterns(v) for v in node]
    return node
