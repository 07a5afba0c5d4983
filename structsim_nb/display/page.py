"""Building blocks of a self-contained HTML page: summary tiles, charts, glossary, interactive tables.

Nothing here knows about reports: `report_page` (a report's page), the `evaluate` runs page and a
comparison page put these blocks together. The page carries its own CSS and script (in
`structsim_nb/display/assets/`), written inline: it opens offline, from a file, with no CDN. Charts are SVG
images embedded as data URIs.

Tables are drawn by the script from JSON embedded beside them, so a 10,000-row table costs the
browser one page of rows at a time: sortable (click a header: ascending, descending, back to the
page's order), filterable (a text box over the shown columns, and a drop-down per categorical
column), paged ("Show more"), and with an optional detail per row (documents side by side with
paths highlighted, and small tables) that expands in place. `static_table` draws a plain HTML
table instead, for notebook output where no script runs.

Every value reaches the page as JSON (`jsonable`): nested values show as JSON, not Python reprs,
and NaN as a blank.
"""

from __future__ import annotations

import base64
import html
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Literal

import orjson
import pandas as pd
from pydantic_core import to_jsonable_python

__all__ = [
    "Column",
    "Tile",
    "document",
    "drop_constant",
    "figure",
    "fragment",
    "glossary",
    "json_html",
    "jsonable",
    "score_colour",
    "section",
    "static_table",
    "stylesheet",
    "table",
    "tiles",
]

#: How a column's values are drawn: text (wrapped), integer, number (`digits` places), percent,
#: score (number on a red-amber-green background), pass (pass/fail badge), badge (the value as a
#: badge, coloured for known words such as `missed`), json (compact JSON), path (monospace), link
#: (`{"text", "target": {"table", "column", "value"}}`: filters another table when clicked).
ColumnKind = Literal["text", "integer", "number", "percent", "score", "pass", "badge", "json", "path", "link"]


@dataclass(frozen=True)
class Column:
    """One column of a `table`.

    Attributes:
        key: The DataFrame column it reads.
        label: Header text. Default: the key.
        kind: How values are drawn (`ColumnKind`). Default "text".
        digits: Decimal places for `number` and `score`. Default 3.
        help: Header tooltip (e.g. what `fn` means). Default None.
        filter: Offer a drop-down of this column's values. Default False.
        hidden: Keep the column in the data (for `filter` or `indent_by`) without showing it.
        indent_by: A column holding a depth; rows deeper than 0 are indented (children under parents).
        wrap: Let long text wrap (default True); False keeps a `text` value on one line (names).
    """

    key: str
    label: str | None = None
    kind: ColumnKind = "text"
    digits: int = 3
    help: str | None = None
    filter: bool = False
    hidden: bool = False
    indent_by: str | None = None
    wrap: bool = True

    def spec(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "label": self.label or self.key,
            "kind": self.kind,
            "digits": self.digits,
            "help": self.help,
            "filter": self.filter,
            "hidden": self.hidden,
            "indentBy": self.indent_by,
            "wrap": self.wrap,
        }


@dataclass(frozen=True)
class Tile:
    """One summary figure: a label, a value, an optional note, and a tone (`good`, `bad`, `warn`, `neutral`)."""

    label: str
    value: str
    note: str | None = None
    tone: Literal["good", "bad", "warn", "neutral"] = "neutral"


@cache
def _asset(name: str) -> str:
    return resources.files("structsim_nb.display").joinpath("assets").joinpath(name).read_text(encoding="utf-8")


def stylesheet() -> str:
    """The page's CSS (every rule scoped under `.ss`), for a widget or a notebook output to include."""
    return _asset("page.css")


#: What orjson's C encoder writes itself in `jsonable` and `_script_json`: only the exact built-in types (no str, int,
#: dict or list subclass, no date or dataclass); everything else goes through `jsonable`'s Python path.
_PLAIN_ONLY = orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


def jsonable(value: Any) -> Any:
    """A value as plain JSON: NaN/NA become None, numpy scalars Python numbers, models dicts, dates text.

    Objects JSON cannot hold become their `str()`, never a Python repr of a container. A dict or
    list made only of built-in JSON types (the usual case: a report's metadata) is converted in
    one pass of orjson's C encoder, with the same result (NaN and infinities become None there
    too); anything else in it sends the whole value down the Python path.
    """
    if type(value) in (dict, list):
        try:
            return orjson.loads(orjson.dumps(value, option=_PLAIN_ONLY))
        except TypeError:  # orjson.JSONEncodeError: a key, an object, depth, a surrogate, a big int
            pass
    return _converted(value)


#: Deepest nesting `jsonable`'s Python path keeps (orjson's own path takes up to 255 levels); below it a container
#: is shown as `DEEPER`: a page is read by people, and both this conversion and the JSON writer recurse (an answer
#: nested 500 levels deep ended a whole `evaluate` run).
DEEPEST_SHOWN = 100
DEEPER = "... (nested deeper than 100 levels; the JSON report holds it whole)"


def _converted(value: Any, depth: int = 0) -> Any:
    """`jsonable`'s Python path. It recurses into itself, not `jsonable`: a value orjson refused as a whole is not
    offered to orjson again subtree by subtree (which would encode a deep document once per level). A container
    below `DEEPEST_SHOWN` levels becomes the text `DEEPER`."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, (Mapping, list, tuple)) and depth >= DEEPEST_SHOWN:
        return DEEPER
    if isinstance(value, Mapping):
        return {str(key): _converted(item, depth + 1) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_converted(item, depth + 1) for item in value]
    if hasattr(value, "item") and callable(value.item) and getattr(value, "shape", None) == ():  # numpy scalar
        return _converted(value.item(), depth)
    if isinstance(value, pd.Timestamp):
        return value.isoformat()
    return _converted(to_jsonable_python(value, fallback=str), depth)


def _script_json(data: Any) -> str:
    """`data` as JSON safe inside a `<script>` element: every `<` escaped, so no `</script>` can end it early.

    Any value is taken, converted as `jsonable` converts it (NaN and infinities become null). The
    plain parts (the usual case: a report's metadata) are written by orjson's C encoder in one
    pass, the rest through `jsonable`; data orjson cannot take at all (a non-string key, a lone
    surrogate, an integer past 64 bits) is made plain by `jsonable` and written by `json`.
    """
    try:
        text = orjson.dumps(data, default=_encodable, option=_PLAIN_ONLY).decode("utf-8")
    except TypeError:  # orjson.JSONEncodeError
        text = json.dumps(jsonable(data), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return text.replace("<", "\\u003c")


def _encodable(value: Any) -> Any:
    """orjson's `default`: what `jsonable` makes of a value orjson does not write itself, as built-in types."""
    converted = jsonable(value)
    if isinstance(converted, str):
        return str.__str__(converted)  # a str subclass (a str enum) as the plain text json would write
    if isinstance(converted, int) and not isinstance(converted, bool):
        return int(converted)
    if isinstance(converted, float):
        return float(converted)
    return converted


def score_colour(score: float) -> str:
    """The background for a score: light red at 0, light amber at 0.5, light green at 1 (as page.js)."""
    stops = ((0.0, (248, 208, 200)), (0.5, (251, 231, 181)), (1.0, (221, 241, 228)))
    x = min(1.0, max(0.0, score))
    (lo, low), (hi, high) = (stops[0], stops[1]) if x <= 0.5 else (stops[1], stops[2])
    t = (x - lo) / (hi - lo)
    return "rgb({},{},{})".format(*(round(a + (b - a) * t) for a, b in zip(low, high, strict=True)))


def tiles(items: Sequence[Tile]) -> str:
    """A row of summary tiles."""
    cells = []
    for item in items:
        note = f"<div class='ss-tile-note'>{html.escape(item.note)}</div>" if item.note else ""
        cells.append(
            f"<div class='ss-tile {item.tone}'><div class='ss-tile-label'>{html.escape(item.label)}</div>"
            f"<div class='ss-tile-value'>{html.escape(item.value)}</div>{note}</div>"
        )
    return f"<div class='ss-tiles'>{''.join(cells)}</div>"


def glossary(entries: Mapping[str, str]) -> str:
    """A two-column definition list (term, meaning)."""
    rows = "".join(f"<dt>{html.escape(term)}</dt><dd>{html.escape(text)}</dd>" for term, text in entries.items())
    return f"<dl class='ss-glossary'>{rows}</dl>"


def figure(chart: Any, *, alt: str, caption: str | None = None, png: bool = False) -> str:
    """A matplotlib chart (an `Axes` or a `Figure`) as an embedded image, with alt text and a caption.

    Args:
        chart: The `Axes` or `Figure`.
        alt: The image's alt text.
        caption: A line under it. Default None.
        png: Embed a PNG (`plot.figure_png` at 1.5x): notebook viewers that drop SVG data images still
            show it. Default False: SVG with text as text (`plot.figure_svg`), sharp at any zoom.

    Returns:
        `<figure>` holding an `<img>` with a data URI, so two charts on one page never share ids.
    """
    from ..plot.figures import figure_png, figure_svg

    target = getattr(chart, "figure", chart)
    data, size = figure_png(target, scale=1.5) if png else figure_svg(target)
    mime = "image/png" if png else "image/svg+xml"
    encoded = base64.b64encode(data).decode("ascii")
    caption_html = f"<figcaption>{html.escape(caption)}</figcaption>" if caption else ""
    width, height = size["width"], size["height"]
    return (
        f"<figure class='ss-figure' style='width:{width}px'><img alt='{html.escape(alt, quote=True)}' "
        f"width='{width}' height='{height}' src='data:{mime};base64,{encoded}'>{caption_html}</figure>"
    )


def section(title: str, body: str, *, anchor: str | None = None, intro: str | None = None) -> str:
    """A titled section; `anchor` becomes its id (for the table of contents)."""
    ident = f" id='{html.escape(anchor, quote=True)}'" if anchor else ""
    intro_html = f"<p class='ss-intro'>{intro}</p>" if intro else ""
    return f"<section{ident}><h2>{html.escape(title)}</h2>{intro_html}{body}</section>"


def drop_constant(
    frame: pd.DataFrame, *, keep: Sequence[str] = (), only: Sequence[str] | None = None
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Drop columns with one value throughout (one model, one evaluator), to be said once instead.

    Args:
        frame: The table.
        keep: Columns kept even when constant (a pass column that is all "pass" still says so).
        only: Consider only these columns for dropping. Default None: every column.

    Returns:
        `(frame without them, {column: the value})`. A frame of one row is returned whole (every
        column would be constant), and so is an empty one.
    """
    if len(frame) < 2:
        return frame, {}
    candidates = [c for c in (only if only is not None else frame.columns) if c in frame.columns and c not in keep]
    constants: dict[str, Any] = {}
    for column in candidates:
        values = frame[column]
        try:
            unique = values.nunique(dropna=False)
        except TypeError:  # unhashable values (lists, dicts) are not constant columns worth dropping
            continue
        if unique == 1:
            constants[column] = jsonable(values.iloc[0])
    return frame.drop(columns=list(constants)), constants


def table(
    frame: pd.DataFrame,
    columns: Sequence[Column],
    *,
    anchor: str,
    noun: tuple[str, str] = ("row", "rows"),
    page_size: int = 25,
    show_all_limit: int = 5000,
    details: Sequence[Mapping[str, Any] | None] | None = None,
    empty: str = "No rows match.",
) -> str:
    """An interactive table: sortable, filterable, paged, with optional expandable detail per row.

    Args:
        frame: The rows, in the order the page shows first (put the worst first).
        columns: What to show and how (`Column`); a key missing from `frame` is an error.
        anchor: The table's element id, unique on the page; links and tests address it.
        noun: Singular and plural for the count line ("Showing 25 of 31 cases"). Default rows.
        page_size: Rows shown at first and added by each "Show more". Default 25.
        show_all_limit: Offer "Show all" only up to this many matching rows. Default 5,000.
        details: One entry per row, or None for a row without detail. An entry may hold `reason`
            (text), `panes` (`[{"title", "value", "marks": {path: kind}}]`, documents drawn side by
            side as JSON with the marked paths highlighted) and `tables`
            (`[{"title", "columns": [labels], "rows": [[values]], "kinds": [ColumnKind]}]`).
        empty: What an empty table (or a filter that matches nothing) says.

    Returns:
        The HTML: a container the page script fills, the data as embedded JSON, and a `<noscript>`
        note. Without the script (notebook output) use `static_table`.

    Raises:
        KeyError: If a column names a key `frame` does not have.
        ValueError: If `details` is not one entry per row.
    """
    missing = [column.key for column in columns if column.key not in frame.columns]
    if missing:
        raise KeyError(f"table columns must be in the frame; missing {', '.join(missing)}")
    if details is not None and len(details) != len(frame):
        raise ValueError(f"details must have one entry per row ({len(frame)}); got {len(details)}")
    keys = [column.key for column in columns]
    # Column by column (`tolist`, in C) rather than `itertuples`, which reads a pyarrow-backed text column one
    # value at a time; a numpy scalar comes out as the Python number it is, which `_script_json` writes the same.
    shown = frame[keys]
    rows = (
        [list(record) for record in zip(*(shown.iloc[:, at].tolist() for at in range(len(keys))), strict=True)]
        if keys
        else [[] for _ in range(len(frame))]
    )
    data: dict[str, Any] = {
        "columns": [column.spec() for column in columns],
        "rows": rows,
        "pageSize": page_size,
        "showAllLimit": show_all_limit,
        "noun": list(noun),
        "empty": empty,
    }
    if details is not None:
        data["details"] = list(details)
    ident = html.escape(anchor, quote=True)
    return (
        f"<div class='ss-table-wrap'><div class='ss-table' id='{ident}' data-source='{ident}-data'>"
        "<noscript><p class='ss-empty'>This table needs JavaScript; the JSON report holds every row.</p></noscript>"
        f"</div><script type='application/json' id='{ident}-data'>{_script_json(data)}</script></div>"
    )


def _static_cell(column: Column, value: Any) -> str:
    value = jsonable(value)
    if value is None:
        return "<td></td>"
    if column.kind == "integer":
        return f"<td class='num'>{int(value):,}</td>"
    if column.kind in ("number", "score"):
        style = f" style='background:{score_colour(float(value))}'" if column.kind == "score" else ""
        return f"<td class='num'{style}>{float(value):.{column.digits}f}</td>"
    if column.kind == "percent":
        return f"<td class='num'>{100 * float(value):.1f}%</td>"
    if column.kind == "pass":
        return (
            "<td><span class='ss-badge pass'>pass</span></td>"
            if value
            else "<td><span class='ss-badge fail'>fail</span></td>"
        )
    if column.kind == "badge":
        css = "".join(c if c.isalnum() else "-" for c in str(value).lower())
        return f"<td><span class='ss-badge {css}'>{html.escape(str(value))}</span></td>"
    if column.kind == "json":
        return f"<td class='json'><code>{html.escape(json.dumps(value, ensure_ascii=False))}</code></td>"
    if column.kind == "path":
        return f"<td><code>{html.escape(str(value))}</code></td>"
    if column.kind == "link":
        return f"<td>{html.escape(str(value.get('text', '')))}</td>"
    return f"<td class='{'wrap' if column.wrap else 'nowrap'}'>{html.escape(str(value))}</td>"


def static_table(frame: pd.DataFrame, columns: Sequence[Column], *, note: Column | None = None) -> str:
    """The rows as a plain HTML table with the page's formatting (no script: for notebook output).

    Args:
        frame: The rows, in the order to show them.
        columns: What to show and how (`Column`); hidden ones are left out.
        note: A text column shown on its own line under each row, across the whole table, labelled
            with its label (a long reason then reads as a sentence at any width rather than as a
            column a few characters wide). A row whose note is blank gets no line. Default None.
    """
    shown = [column for column in columns if not column.hidden]
    head = "".join(
        f"<th{' class=num' if column.kind in ('integer', 'number', 'score', 'percent') else ''}>"
        + (
            f"<abbr title='{html.escape(column.help, quote=True)}'>{html.escape(column.label or column.key)}</abbr>"
            if column.help
            else html.escape(column.label or column.key)
        )
        + "</th>"
        for column in shown
    )
    rows = []
    for record in frame.to_dict("records"):
        cells = "".join(_static_cell(column, record[column.key]) for column in shown)
        text = jsonable(record[note.key]) if note is not None else None
        if note is None or text in (None, ""):
            rows.append(f"<tr>{cells}</tr>")
            continue
        label = f"<span class='ss-note-label'>{html.escape(note.label or note.key)}</span>"
        rows.append(
            f"<tr class='ss-has-note'>{cells}</tr><tr class='ss-note'>"
            f"<td colspan='{len(shown)}'>{label}{html.escape(str(text))}</td></tr>"
        )
    grid = f"<table class='ss-grid'><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    return f"<div class='ss-scroll'>{grid}</div>"


def json_html(value: Any, marks: Mapping[str, str] | None = None) -> str:
    """A document as indented JSON lines, the marked paths highlighted; the Python twin of page.js `renderJson`.

    Args:
        value: Plain JSON values (see `marks.as_document`); a string is shown as text.
        marks: `{path: kind}` (`missed`, `invented`, `wrong`); paths as `marks.join_path` writes them.

    Returns:
        `<div class="ss-json">` with one line per scalar and bracket; a marked line or block carries
        `m-<kind>` and a tag naming the kind.
    """
    marks = marks or {}
    if isinstance(value, str):
        return f"<pre class='ss-text'>{html.escape(value)}</pre>"
    out: list[str] = []

    def scalar(item: Any) -> str:
        if item is None:
            return "<span class='z'>null</span>"
        if isinstance(item, float) and item.is_integer() and abs(item) < 1e21:
            item = int(item)  # as JavaScript writes it: 1500.0 is 1500
        css = "s" if isinstance(item, str) else "n"
        return f"<span class='{css}'>{html.escape(json.dumps(item, ensure_ascii=False))}</span>"

    def node(item: Any, path: str, key: str | None, depth: int, last: bool) -> None:
        pad = "  " * depth
        label = "" if key is None else f"<span class='k'>{html.escape(json.dumps(key, ensure_ascii=False))}</span>: "
        comma = "" if last else ","
        kind = marks.get(path) if path else None
        mark = f" m-{kind}" if kind else ""
        title = f" title='{html.escape(kind)}'" if kind else ""
        tag = f"<span class='tag'>{html.escape(kind)}</span>" if kind else ""
        where = html.escape(path, quote=True)
        if isinstance(item, (list, dict)) and item:
            opening, closing = ("[", "]") if isinstance(item, list) else ("{", "}")
            out.append(
                f"<div class='b{mark}'{title} data-path='{where}'><div class='l'>{pad}{label}{opening}{tag}</div>"
            )
            if isinstance(item, list):
                for index, child in enumerate(item):
                    node(child, f"{path}[{index}]", None, depth + 1, index == len(item) - 1)
            else:
                names = list(item)
                for index, name in enumerate(names):
                    node(
                        item[name],
                        f"{path}.{name}" if path else str(name),
                        str(name),
                        depth + 1,
                        index == len(names) - 1,
                    )
            out.append(f"<div class='l'>{pad}{closing}{comma}</div></div>")
        else:
            text = ("[]" if isinstance(item, list) else "{}") if isinstance(item, (list, dict)) else scalar(item)
            out.append(f"<div class='l{mark}'{title} data-path='{where}'>{pad}{label}{text}{comma}{tag}</div>")

    node(jsonable(value), "", None, 0, True)
    return f"<div class='ss-json'>{''.join(out)}</div>"


def fragment(body: str) -> str:
    """Page content for a notebook cell: the body with the page's styles written on each element, no script.

    The styles go into `style=` attributes (css-inline, CSS variables resolved), not a `<style>`
    element: JupyterLab strips `<style>` from an untrusted notebook's output but keeps inline
    styles (those its sanitizer allows: colours, borders, padding, flex, table layout), so a
    committed notebook opened untrusted reads as it does trusted, in nbconvert HTML, or in VS Code.
    Rules a static fragment cannot use (`:hover`, `::after`) are left out.
    """
    import css_inline  # a Rust extension: loaded when the first fragment is drawn

    return str(
        css_inline.inline_fragment(
            f"<div class='ss'>{body}</div>",
            _asset("page.css"),
            resolve_css_variables=True,
            load_remote_stylesheets=False,
        )
    )


def document(
    title: str,
    body: str,
    *,
    subtitle: str | None = None,
    contents: Sequence[tuple[str, str]] = (),
) -> str:
    """A whole HTML page: inline styles and script, a title, an optional table of contents, the body.

    Args:
        title: The `<title>` and the heading.
        body: HTML from the blocks above.
        subtitle: A line under the heading (what was evaluated, when). Default None.
        contents: `(anchor, text)` links to sections, shown under the heading. Default none.

    Returns:
        The page, starting `<!DOCTYPE html>`; it loads nothing from the network.
    """
    links = "".join(f"<a href='#{html.escape(a, quote=True)}'>{html.escape(t)}</a>" for a, t in contents)
    nav = f"<nav class='ss-toc'>{links}</nav>" if links else ""
    sub = f"<p class='ss-sub'>{html.escape(subtitle)}</p>" if subtitle else ""
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{html.escape(title)}</title><style>{_asset('page.css')}</style></head>"
        f"<body class='ss'><main class='ss-main'><h1>{html.escape(title)}</h1>{sub}{nav}{body}</main>"
        f"<script>{_asset('page.js')}</script></body></html>\n"
    )
