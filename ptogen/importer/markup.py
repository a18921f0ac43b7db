"""Page markup the spec model does not take, turned into the Markdown it does.

Pages may hold raw HTML (tables, `<br>`, `<code>`), and operand tables come with varying columns
(`Operand | Role | Type | Description`, `Operand | Description`, ...). Spec prose refuses raw HTML,
so HTML is rewritten to its Markdown equivalent before the page is parsed; what has no
equivalent is dropped and reported.
"""

from __future__ import annotations

import html
import re

_FENCE = re.compile(r"^\s*```")
_TABLE = re.compile(r"<table\b.*?</table\s*>", re.IGNORECASE | re.DOTALL)
_ROW = re.compile(r"<tr\b[^>]*>(.*?)</tr\s*>", re.IGNORECASE | re.DOTALL)
_CELL = re.compile(r"<t([hd])\b[^>]*>(.*?)</t[hd]\s*>", re.IGNORECASE | re.DOTALL)
_CODE = re.compile(r"<code\b[^>]*>(.*?)</code\s*>", re.IGNORECASE | re.DOTALL)
_INLINE = (
    (re.compile(r"<br\s*/?>", re.IGNORECASE), " "),
    (re.compile(r"</?(?:b|strong)\s*>", re.IGNORECASE), "**"),
    (re.compile(r"</?(?:i|em)\s*>", re.IGNORECASE), "*"),
    (re.compile(r"<sub\s*>(.*?)</sub\s*>", re.IGNORECASE), r"_\1"),
    (re.compile(r"<sup\s*>(.*?)</sup\s*>", re.IGNORECASE), r"^\1"),
    (re.compile(r"</?(?:p|div|span|thead|tbody)\b[^>]*>", re.IGNORECASE), " "),
)
# Only these tags are rewritten or removed: a capture's unfenced C++ (`template <typename T>`)
# looks like a tag too. Any other `<` that reaches spec prose is escaped by the repair step.
_KNOWN = r"(?:a|b|i|em|strong|code|br|p|div|span|sub|sup|table|thead|tbody|tr|td|th|img|hr|ul|ol|li)"
_TAG = re.compile(rf"</?{_KNOWN}\b[^<>]*>", re.IGNORECASE)
_CODE_SPAN = re.compile(r"`[^`\n]*`")


def _inline(text: str, dropped: list[str]) -> str:
    """One line of HTML-bearing prose as Markdown; code spans are left alone."""
    pieces = re.split(r"(`[^`\n]*`)", text)
    for i, piece in enumerate(pieces):
        if i % 2:
            continue
        piece = _CODE.sub(lambda m: "`" + html.unescape(_TAG.sub("", m.group(1))).strip() + "`", piece)
        if not _TAG.search(piece):
            pieces[i] = piece
            continue
        for pattern, repl in _INLINE:
            piece = pattern.sub(repl, piece)
        for tag in _TAG.findall(piece):
            dropped.append(f"HTML tag {tag} dropped")
        pieces[i] = _TAG.sub("", piece)
    return "".join(pieces)


def _table(block: str, dropped: list[str]) -> str:
    rows = []
    for row in _ROW.findall(block):
        cells = [" ".join(_inline(c, dropped).split()).replace("|", "\\|") for _, c in _CELL.findall(row)]
        rows.append("| " + " | ".join(cells) + " |")
    if not rows:
        return ""
    width = rows[0].count(" | ") + 1
    return "\n".join([rows[0], "|" + "---|" * width, *rows[1:]])


def html_to_markdown(text: str) -> tuple[str, list[str]]:
    """The page with its raw HTML rewritten as Markdown, and what had to be dropped."""
    if not _TAG.search(text):
        return text, []
    dropped: list[str] = []
    out: list[str] = []
    fenced = False
    chunk: list[str] = []

    def flush() -> None:
        body = _TABLE.sub(lambda m: "\n" + _table(m.group(0), dropped) + "\n", "\n".join(chunk))
        out.extend(_inline(line, dropped) for line in body.split("\n"))
        chunk.clear()

    for line in text.split("\n"):
        if _FENCE.match(line):
            flush()
            fenced = not fenced
            out.append(line)
        elif fenced:
            out.append(line)
        else:
            chunk.append(line)
    flush()
    return "\n".join(out), dropped


def split_row(row: str) -> list[str]:
    """Cells of a Markdown table row; a `|` inside a code span or escaped as `\\|` stays in its cell."""
    cells, cur, code = [], "", False
    body = row.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and body[i + 1 : i + 2] == "|":
            cur += "|"
            i += 2
            continue
        if ch == "`":
            code = not code
        if ch == "|" and not code:
            cells.append(cur.strip())
            cur = ""
        else:
            cur += ch
        i += 1
    cells.append(cur.strip())
    return cells


_COLUMNS = (
    ("description", ("desc", "meaning", "notes")),
    ("role", ("role",)),
    ("type", ("type",)),
    ("name", ("operand", "result", "name", "parameter", "input", "output", "argument")),
)


def _column(header: str) -> str | None:
    low = header.strip("`* ").lower()
    for key, words in _COLUMNS:
        if any(w in low for w in words):
            return key
    return None


def _one_type(cell: str) -> str:
    """A type cell's type: the cell without its code marks, or, where prose surrounds the code
    (`scalar `i32``, `` `index` or `i64` ``), its first code span: the type a spec states."""
    spans = re.findall(r"`([^`]+)`", cell)
    if spans and cell.strip() != f"`{spans[0]}`":
        return spans[0].strip()
    return cell.strip("`")


def read_table(rows: list[str]) -> list[dict[str, str]]:
    """Operand rows keyed by `name`, `role`, `type`, `description`, whatever the column order.

    A table without a recognised header row is read positionally (name, [role,] type, description),
    the layout ptogen itself writes."""
    parsed = [split_row(r) for r in rows if r.strip().startswith("|") or r.count("|") >= 2]
    keys: list[str | None] | None = None
    out: list[dict[str, str]] = []
    for cells in parsed:
        if set("".join(cells)) <= set("-: "):
            continue  # the |---| rule
        header = [_column(c) for c in cells]
        if header[0] == "name" and ("description" in header or "type" in header) and keys is None:
            keys = header
            continue
        if len(cells) < 2:
            continue
        names = keys or (
            ["name", "role", "type", "description"] if len(cells) >= 4 else ["name", "type", "description"]
        )
        row = {k: c.strip() for k, c in zip(names, cells, strict=False) if k}
        row["name"] = row.get("name", "").strip("`* ")
        if row.get("type"):
            row["type"] = _one_type(row["type"])
        out.append(row)
    return out
