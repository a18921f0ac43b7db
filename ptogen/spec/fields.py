"""Checked field types shared by every spec model: C++ identifiers, one-line text, Markdown prose.

Free text is checked so it cannot break out of the Markdown or C++ it lands in.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

# ----------------------------------------------------------------------------- checked strings

_CPP_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_CPP_QUALIFIED = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*$")
_CPP_KEYWORDS = frozenset(
    [
        "alignas",
        "alignof",
        "and",
        "asm",
        "auto",
        "bool",
        "break",
        "case",
        "catch",
        "char",
        "class",
        "const",
        "constexpr",
        "continue",
        "decltype",
        "default",
        "delete",
        "do",
        "double",
        "else",
        "enum",
        "explicit",
        "export",
        "extern",
        "false",
        "float",
        "for",
        "friend",
        "goto",
        "if",
        "inline",
        "int",
        "long",
        "mutable",
        "namespace",
        "new",
        "noexcept",
        "not",
        "nullptr",
        "operator",
        "or",
        "private",
        "protected",
        "public",
        "register",
        "return",
        "short",
        "signed",
        "sizeof",
        "static",
        "struct",
        "switch",
        "template",
        "this",
        "throw",
        "true",
        "try",
        "typedef",
        "typeid",
        "typename",
        "union",
        "unsigned",
        "using",
        "virtual",
        "void",
        "volatile",
        "while",
        "xor",
    ]
)
_HTML_TAG = re.compile(r"<\s*[A-Za-z!/?]")
_CODE_SPAN = re.compile(r"`[^`\n]*`")
# A Markdown link or image target `](scheme:...)`, or a reference definition `[x]: scheme:...`.
_LINK_SCHEME = re.compile(
    r"(?:\]\(\s*<?|^\s*(?:[-*+>]\s+|\d+[.)]\s+)*\[[^\]]*\]:\s*<?)\s*([A-Za-z][A-Za-z0-9+.\-]*)\s*:",
    re.MULTILINE,
)
_SAFE_SCHEMES = frozenset(["http", "https", "mailto"])


def _no_control(value: str, allow: str = "") -> None:
    """Refuse control, format (bidi overrides, zero-width) and separator characters: NUL or ESC
    corrupt terminals and files, and a right-to-left override makes text read other than it is."""
    rest = value
    for ch in allow:
        rest = rest.replace(ch, "")
    if rest.isprintable():  # fast path (C speed): no C* or Z* character but the plain space
        return
    for ch in rest:
        category = unicodedata.category(ch)
        if category in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            name = unicodedata.name(ch, "control character")
            raise ValueError(f"must not contain U+{ord(ch):04X} ({name.lower()})")


def _cpp_ident(value: str) -> str:
    if not _CPP_IDENT.match(value):
        raise ValueError(f"{value!r} is not a C++ identifier")
    if value in _CPP_KEYWORDS:
        raise ValueError(f"{value!r} is a C++ keyword")
    return value


def _cpp_qualified(value: str) -> str:
    if not _CPP_QUALIFIED.match(value):
        raise ValueError(f"{value!r} is not a (qualified) C++ name")
    return value


def _one_line(value: str) -> str:
    if "\n" in value or "\r" in value:
        raise ValueError("must be a single line")
    if "```" in value:
        raise ValueError("must not contain a code fence")
    _no_control(value, "\t")
    if value.rstrip().endswith("\\"):
        raise ValueError("must not end in a backslash (it would continue a C++ comment onto the next line)")
    return value.strip()


def _code_span(value: str) -> str:
    # Printed between backticks in a table cell: a backtick would end the code span and let
    # the rest through as Markdown/HTML, a `|` would split the cell.
    for bad in ("`", "|"):
        if bad in value:
            raise ValueError(f"must not contain {bad!r} (it is shown as `code` in a table cell)")
    return value


def _markdown(value: str) -> str:
    # Prose is Markdown by design, but raw HTML (outside `code`) could inject into the site.
    if _HTML_TAG.search(_CODE_SPAN.sub("", value)):
        raise ValueError("raw HTML is not allowed in prose; put code in `backticks`")
    if any(line.lstrip().startswith("```") for line in value.splitlines()):
        raise ValueError("code fences are not allowed in prose; use an example")
    _no_control(value, "\n\t")
    for match in _LINK_SCHEME.finditer(value):
        if match.group(1).lower() not in _SAFE_SCHEMES:
            raise ValueError(f"links may use http, https or mailto, not {match.group(1)!r}")
    return value.strip()


def _code(value: str) -> str:
    if "```" in value:
        raise ValueError("must not contain a code fence")
    _no_control(value, "\n\t")
    return value.rstrip("\n")


CppIdent = Annotated[str, AfterValidator(_cpp_ident)]
# Element type spellings may be builtin keywords (`float`), but are still single identifiers.
TypeName = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]
CppQualified = Annotated[str, AfterValidator(_cpp_qualified)]
# A template argument's value in a test: a (qualified) name, or a decimal integer (`int grp_axis`).
CppConstant = Annotated[str, Field(pattern=r"^(-?[0-9]+|[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*)$")]
# A builtin's parameter type: a (qualified) name, const or not, by value, reference, pointer or a
# reference to a pointer (a pointer the builtin moves on) or a pointer to pointers (vmrgsort4's lists).
CppParamType = Annotated[
    str, Field(pattern=r"^(const )?[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*(\*\*|\*&|[&*])?$")
]
# A builtin's example argument: a constant, or `{}` for a value-initialised variable.
CppExample = Annotated[
    str, Field(pattern=r"^(\{\}|-?[0-9]+|[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*)$")
]
Line = Annotated[str, AfterValidator(_one_line)]
InlineText = Annotated[str, AfterValidator(_one_line), AfterValidator(_markdown)]
Prose = Annotated[str, AfterValidator(_markdown)]
Code = Annotated[str, AfterValidator(_code)]
# Test values land in JSON manifests and C++ literals; NaN and the infinities have no JSON
# spelling and are among the special values every float op is tested with anyway.
FiniteFloat = Annotated[float, Field(allow_inf_nan=False)]
# Integer test values become C++ literals of at most 64 bits.
Int64 = Annotated[int, Field(ge=-(1 << 63), le=(1 << 63) - 1)]
CodeSpan = Annotated[str, AfterValidator(_one_line), AfterValidator(_code_span)]
Name = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$")]
ProfileName = Annotated[str, Field(pattern=r"^[A-Z][A-Z0-9]*$")]
# A tile's location (TileType), each backed by one on-chip memory.
TileLocation = Literal["Vec", "Mat", "Left", "Right", "Acc", "Bias", "Scaling", "ScaleLeft", "ScaleRight"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
