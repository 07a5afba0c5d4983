"""Tests for `structsim_nb.plot.figures`: charts made without pyplot show as pictures and are written compactly."""

from __future__ import annotations

import io
import struct
import subprocess
import sys

import pytest
from matplotlib.figure import Figure
from PIL import Image

from structsim_nb.demo import run_reference
from structsim_nb.plot.figures import figure_png, figure_svg, new_axes


@pytest.fixture(scope="module")
def reference():
    return run_reference()


class TestNotebookDisplay:
    def test_a_new_figure_shows_itself_as_png(self, reference):
        ax = reference.plot.fields()
        data, size = ax._repr_png_()
        assert data.startswith(b"\x89PNG")
        width, height = struct.unpack(">II", data[16:24])
        assert (width, height) == (size["width"] * 2, size["height"] * 2)
        assert isinstance(ax.figure, Figure)

    def test_no_pyplot_state(self, reference):
        code = (
            "import sys, matplotlib; matplotlib.use('Agg'); from structsim_nb.demo import run_reference; "
            "r = run_reference(); [getattr(r.plot, n)() for n in ('fields','scores','precision_recall','threshold')]; "
            "print('matplotlib.pyplot' in sys.modules)"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        assert out.strip() == "False"


def test_png_keeps_its_look_in_a_palette():
    ax = new_axes(4.0, 2.0)
    ax.barh([0, 1], [3, 5], color=["#56B4E9", "#D55E00"])
    full, size = figure_png(ax.figure, palette=False)
    small, same = figure_png(ax.figure)
    assert size == same == {"width": 400, "height": 200}
    assert len(small) < len(full)
    with Image.open(io.BytesIO(small)) as reduced, Image.open(io.BytesIO(full)) as original:
        assert reduced.mode == "P" and reduced.size == original.size == (800, 400)
        # The bar colours survive the palette exactly.
        colours = {colour for _, colour in reduced.convert("RGB").getcolors(maxcolors=1 << 16)}
        assert {(0x56, 0xB4, 0xE9), (0xD5, 0x5E, 0x00)} <= colours


def test_svg_keeps_text_as_text_and_is_the_same_every_time():
    ax = new_axes(4.0, 2.0)
    ax.set_title("Where the errors are")
    first, size = figure_svg(ax.figure)
    second, _ = figure_svg(ax.figure)
    assert first == second  # no date, fixed ids: a page rebuilt from the same report is the same
    assert b"Where the errors are" in first and size == {"width": 400, "height": 200}
