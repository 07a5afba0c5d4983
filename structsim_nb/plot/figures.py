"""Figures for the charts: a figure made without pyplot, shown as a picture in Jupyter, saved as PNG or SVG.

`structsim_nb.plot` says why matplotlib and why its object-oriented API only. This module holds
what every chart shares: the colours, `new_axes` (a `Figure` of our own with one `ReportAxes`, an
`Axes` whose `_repr_png_` makes it show as a picture when it is a cell's last value), and the two
ways a figure is written (`figure_png`, `figure_svg`).
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["COLOURS", "ERROR_KINDS", "figure_png", "figure_svg", "integer_locator", "new_axes", "percent_formatter"]

#: Colours by meaning (Okabe-Ito): the error kinds, right, and pass/fail.
COLOURS = {
    "missed": "#56B4E9",
    "invented": "#CC79A7",
    "wrong": "#D55E00",
    "right": "#B9DCCB",
    "passed": "#009E73",
    "failed": "#D55E00",
    "not scored": "#8C8C8C",
    "precision": "#0072B2",
    "recall": "#E69F00",
    "better": "#009E73",
    "worse": "#D55E00",
    "no evidence": "#8C8C8C",
}
#: The error kinds in stacking order, with the count column each reads.
ERROR_KINDS = (("missed", "fn"), ("invented", "fa"), ("wrong", "fd"))

_INSTALL = 'matplotlib is needed for charts: pip install "matplotlib>=3.9"'


def _matplotlib() -> Any:
    """Import matplotlib (a core dependency; a clear message if the environment lacks it)."""
    try:
        import matplotlib  # noqa: F401  (the Figure import below needs the package)
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - matplotlib is a core dependency
        raise ImportError(_INSTALL) from exc
    return Figure


def _report_axes_class() -> type[Axes]:
    """`ReportAxes`, defined on first use so importing this module does not import matplotlib."""
    global _REPORT_AXES
    if _REPORT_AXES is None:
        from matplotlib.axes import Axes

        class ReportAxes(Axes):  # type: ignore[misc]
            """An `Axes` that shows its figure as a PNG in Jupyter (`_repr_png_`); otherwise a plain `Axes`."""

            def _repr_png_(self) -> tuple[bytes, dict[str, int]]:
                # The root figure, also when this Axes sits in a SubFigure.
                return figure_png(cast("Figure", self.figure.figure))

        _REPORT_AXES = ReportAxes
    return _REPORT_AXES


_REPORT_AXES: type[Axes] | None = None


def figure_png(figure: Figure, *, scale: float = 2.0, palette: bool = True) -> tuple[bytes, dict[str, int]]:
    """A figure as PNG bytes at `scale` times its size, with the display size to show it at.

    Args:
        figure: Any matplotlib figure; its canvas is not changed (Agg renders the copy).
        scale: Pixel density. Default 2.0, so the picture stays sharp on high-density screens.
        palette: Store it with a 256-colour palette (Pillow's median cut, which matplotlib installs):
            these charts use a handful of colours, so it looks the same at about 40% of the bytes,
            which keeps committed notebooks and pages small. Default True; False keeps full RGBA.

    Returns:
        `(png, {"width": w, "height": h})`, the size in CSS pixels (the figure's inches times 100).
        Jupyter reads the pair as an image with that display size.
    """
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100 * scale, facecolor="white")
    width, height = figure.get_size_inches()
    size = {"width": round(width * 100), "height": round(height * 100)}
    if not palette:
        return buffer.getvalue(), size
    from PIL import Image

    buffer.seek(0)
    with Image.open(buffer) as image:
        reduced = image.convert("RGB").quantize(colors=256, method=0)  # 0: median cut, in every Pillow
    out = io.BytesIO()
    reduced.save(out, format="PNG", optimize=True)
    return out.getvalue(), size


def figure_svg(figure: Figure) -> tuple[bytes, dict[str, int]]:
    """A figure as SVG with its text kept as text (`svg.fonttype: none`), and the size to show it at.

    About a third of the size of a sharp PNG, and crisp at any zoom: the report page uses it. Text is
    drawn in the reader's sans-serif font when DejaVu Sans (matplotlib's) is not installed.

    Returns:
        `(svg, {"width": w, "height": h})`, the size in CSS pixels (the figure's inches times 100).
    """
    import matplotlib

    buffer = io.BytesIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "structsim-nb"}):
        figure.savefig(buffer, format="svg", facecolor="white", metadata={"Date": None})
    width, height = figure.get_size_inches()
    return buffer.getvalue(), {"width": round(width * 100), "height": round(height * 100)}


def new_axes(width: float, height: float) -> Axes:
    """A new figure of `width` x `height` inches with one `ReportAxes`, laid out as constrained."""
    figure_cls = _matplotlib()
    figure = figure_cls(figsize=(width, height), layout="constrained")
    return figure.add_subplot(axes_class=_report_axes_class())


def integer_locator() -> Any:
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator(integer=True)


def percent_formatter() -> Any:
    from matplotlib.ticker import PercentFormatter

    return PercentFormatter(1.0, decimals=None)
