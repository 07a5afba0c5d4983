"""Tests for `structsim_nb._notebooks`: executing a notebook, and saving it so that re-executing changes nothing."""

from __future__ import annotations

import copy
import json
import uuid

import pytest

from structsim_nb._notebooks import execute_notebook, rendered_with, stabilise

nbformat = pytest.importorskip("nbformat", reason='needs the notebooks extra: pip install "structsim-nb[notebooks]"')

VIEW = "application/vnd.jupyter.widget-view+json"
STATE = "application/vnd.jupyter.widget-state+json"


def _model(name: str, **state: object) -> dict:
    return {
        "model_module": "@jupyter-widgets/controls",
        "model_module_version": "2.0.0",
        "model_name": name,
        "state": {"_model_name": name, **state},
    }


def _notebook() -> tuple[object, dict[str, str]]:
    """A notebook as nbclient saves one: a shown VBox (an HTML and a layout inside), an Output widget showing
    another widget, and a slider never shown; every id random, as ipywidgets makes them."""
    ids = {name: uuid.uuid4().hex for name in ("box", "html", "layout", "out", "inner", "slider", "slider_layout")}

    def ref(name: str) -> str:
        return f"IPY_MODEL_{ids[name]}"

    state = {
        ids["slider"]: _model("IntSliderModel", layout=ref("slider_layout"), value=3),
        ids["slider_layout"]: _model("LayoutModel", width="10px"),
        ids["box"]: _model("VBoxModel", children=[ref("html"), ref("out")], layout=ref("layout")),
        ids["html"]: _model("HTMLModel", value="<b>hi</b>", layout=ref("layout")),
        ids["layout"]: _model("LayoutModel"),
        ids["out"]: _model(
            "OutputModel",
            outputs=[{"output_type": "display_data", "data": {VIEW: {"model_id": ids["inner"]}, "text/plain": "x"}}],
        ),
        ids["inner"]: _model("ButtonModel", description="go"),
    }
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["widgets"] = {STATE: {"state": state, "version_major": 2, "version_minor": 0}}
    timing = {"iopub.execute_input": "2026-01-01T00:00:00.000001Z", "shell.execute_reply": "2026-01-01T00:00:01Z"}
    shown = nbformat.v4.new_output(
        "execute_result",
        data={VIEW: {"model_id": ids["box"], "version_major": 2, "version_minor": 0}, "text/plain": "explorer"},
        execution_count=2,
    )
    notebook.cells = [
        nbformat.v4.new_code_cell("import ipywidgets", execution_count=1, metadata={"execution": dict(timing)}),
        nbformat.v4.new_code_cell("box", execution_count=2, outputs=[shown], metadata={"execution": dict(timing)}),
    ]
    for number, cell in enumerate(notebook.cells):
        cell["id"] = f"cell-{number}"  # a saved notebook keeps its cell ids; only the widget ids are random
    return notebook, ids


def test_widget_ids_are_renumbered_everywhere_in_the_order_the_notebook_shows_them():
    notebook, ids = _notebook()
    mapping = stabilise(notebook)
    new = {name: mapping[old] for name, old in ids.items()}
    expected = [uuid.uuid5(uuid.UUID("5c2b6a1e-0f3d-4c8e-9a57-3f1d2e7b8c40"), f"widget {n}").hex for n in range(7)]
    # The shown box first, then what it names depth first (children before layout: keys in sorted order), the
    # widget inside the Output widget, and last the slider nobody shows, followed by its layout.
    order = ["box", "html", "layout", "out", "inner", "slider", "slider_layout"]
    assert [new[name] for name in order] == expected
    state = notebook.metadata["widgets"][STATE]["state"]
    assert set(state) == set(expected)
    assert notebook.cells[1].outputs[0]["data"][VIEW]["model_id"] == new["box"]
    assert state[new["box"]]["state"]["children"] == [f"IPY_MODEL_{new['html']}", f"IPY_MODEL_{new['out']}"]
    assert state[new["out"]]["state"]["outputs"][0]["data"][VIEW]["model_id"] == new["inner"]
    text = nbformat.writes(notebook)
    assert not any(old in text for old in ids.values())
    assert all("execution" not in cell.metadata for cell in notebook.cells)  # timestamps left out
    nbformat.validate(notebook)


def test_the_same_notebook_with_other_random_ids_saves_the_same_bytes():
    first, _ = _notebook()
    second, _ = _notebook()
    assert nbformat.writes(first) != nbformat.writes(second)
    stabilise(first)
    stabilise(second)
    assert nbformat.writes(first) == nbformat.writes(second)
    again = copy.deepcopy(first)
    stabilise(again)
    assert nbformat.writes(again) == nbformat.writes(first)  # stabilising twice changes nothing


def test_a_notebook_without_widgets_only_loses_its_timestamps():
    notebook, _ = _notebook()
    del notebook.metadata["widgets"]
    notebook.cells[1].outputs = [nbformat.v4.new_output("stream", text="hi\n")]
    assert stabilise(notebook) == {}
    assert all("execution" not in cell.metadata for cell in notebook.cells)
    assert notebook.cells[1].outputs[0]["text"] == "hi\n"


def test_a_stream_sent_in_pieces_is_saved_as_one_output():
    """The kernel sends `print("x")` as `x` then a line break when its buffer is flushed between the two writes."""
    notebook, _ = _notebook()
    del notebook.metadata["widgets"]
    stream = nbformat.v4.new_output
    notebook.cells[1].outputs = [
        stream("stream", name="stdout", text="extracting 8 documents"),
        stream("stream", name="stdout", text="\n"),
        stream("stream", name="stderr", text="careful\n"),
        stream("stream", name="stdout", text="done\n"),
        nbformat.v4.new_output("display_data", data={"text/plain": "8/8"}),
        stream("stream", name="stdout", text="a"),
        stream("stream", name="stdout", text="b\n"),
    ]
    stabilise(notebook)
    shown = [(o.output_type, o.get("name"), o.get("text")) for o in notebook.cells[1].outputs]
    assert shown == [
        ("stream", "stdout", "extracting 8 documents\n"),
        ("stream", "stderr", "careful\n"),
        ("stream", "stdout", "done\n"),
        ("display_data", None, None),
        ("stream", "stdout", "ab\n"),
    ]
    nbformat.validate(notebook)


@pytest.mark.notebook
def test_executing_a_notebook_twice_saves_the_same_bytes(tmp_path):
    """An explorer's widget state is ~1,000 lines of JSON under random ids; saved, a re-run must not churn it."""
    from structsim_nb.demo import run_reference

    run_reference().to_file(tmp_path / "report.json")
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.cells = [
        nbformat.v4.new_code_cell(
            "import ipywidgets\nfrom structsim_nb import StructuredOutputReport\n"
            "report = StructuredOutputReport.from_file('report.json')\n"
            "unshown = ipywidgets.IntSlider(value=3)"
        ),
        nbformat.v4.new_code_cell("report.explore()"),
        nbformat.v4.new_code_cell("print(report)"),
    ]
    runs = []
    for name in ("first", "second"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "report.json").write_bytes((tmp_path / "report.json").read_bytes())
        nbformat.write(notebook, folder / "explore.ipynb")
        execute_notebook(folder / "explore.ipynb", timeout=300, save=True)
        runs.append((folder / "explore.ipynb").read_bytes())
    assert runs[0] == runs[1]
    saved = json.loads(runs[0])
    state = saved["metadata"]["widgets"][STATE]["state"]
    assert len(state) > 20  # the explorer's widgets were saved, under the stable ids
    [view] = [output["data"][VIEW] for output in saved["cells"][1]["outputs"]]
    assert view["model_id"] in state
    assert "execution" not in saved["cells"][0]["metadata"]
    assert saved["metadata"]["structsim_nb"]["outputs_from"] == rendered_with()
    assert set(rendered_with()) == {"pandas", "numpy", "matplotlib", "pillow"}
