"""`--schema`: loading the class it names, and naming a class the way `--schema` takes it (for stored commands)."""

from __future__ import annotations

from pathlib import Path

import pytest

from structsim_nb.replay.schema import load_schema, schema_reference

REPO = Path(__file__).resolve().parent.parent.parent


def test_a_class_loaded_from_a_file_is_named_by_its_path_relative_to_the_working_folder(monkeypatch) -> None:
    monkeypatch.chdir(REPO)
    schema = load_schema("examples/notebooks/walkthrough_schema.py:Invoice")
    assert schema_reference(schema) == "examples/notebooks/walkthrough_schema.py:Invoice"
    monkeypatch.chdir(REPO / "examples")
    assert schema_reference(schema) == "notebooks/walkthrough_schema.py:Invoice"


def test_a_file_outside_the_working_folder_is_named_by_its_absolute_path(monkeypatch, tmp_path: Path) -> None:
    schema = load_schema(f"{REPO}/examples/notebooks/walkthrough_schema.py:Invoice")
    monkeypatch.chdir(tmp_path)
    assert schema_reference(schema) == f"{REPO}/examples/notebooks/walkthrough_schema.py:Invoice"


def test_an_importable_class_is_named_by_its_module() -> None:
    assert schema_reference(load_schema("structsim_nb.demo:Invoice")) == "structsim_nb.demo:Invoice"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nope", "--schema must be MODULE:CLASS or FILE.py:CLASS; got 'nope'"),
        ("missing/file.py:X", "must be importable; got ImportError: no Python file at missing/file.py"),
        ("json:JSONDecoder", "must name a Pydantic model class"),
    ],
)
def test_bad_specs_say_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_schema(spec)
