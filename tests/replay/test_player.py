"""ReplayModel through a real strands Agent: replay paths and every replay error with its message."""

from __future__ import annotations

import datetime
import json
import logging
import socket
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from strands import Agent
from strands.models import Model
from strands.types.exceptions import EventLoopException, ModelThrottledException

from structsim_nb.errors import (
    ReplayError,
    ReplayExhaustedError,
    ReplayMismatchError,
    UnplayedCallsError,
    UnplayedCallsWarning,
)
from structsim_nb.replay.player import ReplayModel, first_difference
from structsim_nb.replay.recorder import open_model

ROOT = Path(__file__).resolve().parent.parent.parent
WALKTHROUGH = ROOT / "recordings" / "invoice_walkthrough.json"
SYSTEM = "Extract the person."


class Person(BaseModel):
    """A person."""

    name: str
    age: int


class Scripted(Model):
    """A stand-in live model that answers from a script (used only to produce recordings)."""

    _supports_structured_output = True

    def __init__(self, answers: list[list[dict[str, Any]]]) -> None:
        self.answers = answers

    def update_config(self, **kw: Any) -> None: ...

    def get_config(self) -> dict[str, Any]:
        return {"model_id": "scripted"}

    async def structured_output(self, *a: Any, **k: Any) -> Any:
        yield {}

    async def stream(self, *args: Any, **kwargs: Any) -> Any:
        for event in self.answers.pop(0):
            yield event


def tool(payload: str, cuts: list[int], tool_id: str = "tooluse_1") -> list[dict[str, Any]]:
    pieces = [payload[a:b] for a, b in zip([0, *cuts], [*cuts, len(payload)], strict=True)]
    return [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockStart": {"start": {"toolUse": {"toolUseId": tool_id, "name": "Person"}}}},
        *[{"contentBlockDelta": {"delta": {"toolUse": {"input": p}}}} for p in pieces],
        {"contentBlockStop": {}},
        {"messageStop": {"stopReason": "tool_use"}},
    ]


def text(answer: str) -> list[dict[str, Any]]:
    return [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockDelta": {"delta": {"text": answer}}},
        {"contentBlockStop": {}},
        {"messageStop": {"stopReason": "end_turn"}},
    ]


def make(path: Path, answers: list[list[dict[str, Any]]], prompt: str = "Alice is 30.") -> Path:
    with open_model(path, mode="rewrite", live=lambda: Scripted(answers)) as model:
        Agent(model=model, system_prompt=SYSTEM, callback_handler=None)(prompt, structured_output_model=Person)
    return path


def run(path: Path, prompt: str = "Alice is 30.", schema: type[BaseModel] = Person, system: str = SYSTEM) -> Any:
    model = ReplayModel(path)
    result = Agent(model=model, system_prompt=system, callback_handler=None)(prompt, structured_output_model=schema)
    return model, result


class TestReplayPaths:
    def test_committed_walkthrough_recording_replays_through_a_real_agent(self) -> None:
        sys.path.insert(0, str(ROOT / "examples" / "notebooks"))
        from walkthrough_schema import Invoice

        path = ROOT / "recordings" / "invoice_walkthrough.json"
        model = ReplayModel(path)
        request = model.recording.interactions[0].request
        agent = Agent(model=model, system_prompt=request.system[0]["text"], callback_handler=None)
        result = agent(request.messages[0]["content"][0]["text"], structured_output_model=Invoice)
        assert isinstance(result.structured_output, Invoice)
        assert result.stop_reason == "tool_use"
        assert model.unplayed() == []
        assert model.recording.provenance.source == "hand_authored"

    def test_committed_walkthrough_plants_three_errors_that_each_cost_points(self) -> None:
        # The provenance and the notebook say the three planted errors demonstrate the scoring;
        # each must therefore show up as a non-match under the default evaluator, not be forgiven.
        import stickler
        from strands_evals.types.evaluation import EvaluationData

        from structsim_nb import StructuredOutputSimilarity

        sys.path.insert(0, str(ROOT / "examples" / "notebooks"))
        from walkthrough_schema import Invoice

        truth = Invoice(  # read from the document in the recorded prompt, as the notebook does
            invoice_id="NW-2024-0317",
            vendor_name="Northwind Trading Co.",
            invoice_date=datetime.date(2024, 3, 4),
            total_amount=1898.16,
            line_items=[
                {"description": "Oak desk, 140 cm", "quantity": 3, "unit_price": 289.00},
                {"description": "Task chair, mesh back", "quantity": 6, "unit_price": 112.50},
                {"description": "Cable tray, steel", "quantity": 2, "unit_price": 19.90},
            ],
        )
        model = ReplayModel(WALKTHROUGH)
        request = model.recording.interactions[0].request
        prompt = request.messages[0]["content"][0]["text"]
        assert "1,898.16" in prompt and "04/03/2024 (DD/MM/YYYY)" in prompt and "Cable tray, steel" in prompt
        prediction = Agent(model=model, system_prompt=request.system[0]["text"], callback_handler=None)(
            prompt, structured_output_model=Invoice
        ).structured_output

        (row,) = StructuredOutputSimilarity(Invoice).evaluate(
            EvaluationData(input=prompt, actual_output=prediction, expected_output=truth, name="northwind")
        )
        lost = {(m["path"], m["kind"]) for m in row.metadata["non_matches"]}
        assert lost == {("invoice_date", "wrong"), ("total_amount", "wrong"), ("line_items[2]", "missed")}
        scores = stickler.evaluate(truth, prediction).field_scores
        assert scores["invoice_date"] == 0.0 and scores["total_amount"] == 0.0 and scores["line_items"] < 1.0
        assert scores["invoice_id"] == scores["vendor_name"] == 1.0
        note = model.recording.provenance.note
        assert "three deliberate extraction errors" in note and f"total_amount {prediction.total_amount}" in note

    def test_committed_walkthrough_total_is_two_adjacent_digits_transposed_as_its_note_says(self) -> None:
        # The note calls the planted total a transposition of two adjacent digits: swapping one adjacent pair of
        # the printed total must give it, and nothing else may differ. The variant the note says is forgiven (the
        # last two digits swapped) must score as a match, and the planted one must not.
        import stickler

        sys.path.insert(0, str(ROOT / "examples" / "notebooks"))
        from walkthrough_schema import Invoice

        model = ReplayModel(WALKTHROUGH)
        request = model.recording.interactions[0].request
        prompt = request.messages[0]["content"][0]["text"]
        prediction = Agent(model=model, system_prompt=request.system[0]["text"], callback_handler=None)(
            prompt, structured_output_model=Invoice
        ).structured_output
        printed = "1898.16"
        assert "GBP 1,898.16" in prompt
        written = f"{prediction.total_amount:.2f}"
        swaps = [
            i
            for i in range(len(printed) - 1)
            if printed[i] != printed[i + 1] and printed[:i] + printed[i + 1] + printed[i] + printed[i + 2 :] == written
        ]
        assert swaps == [1], (printed, written)
        note = model.recording.provenance.note
        assert f"total_amount {written} (two adjacent digits transposed: the document prints 1,898.16" in note
        relative = abs(prediction.total_amount - 1898.16) / 1898.16
        assert f"the total is {relative:.1%} off" in note and relative > 0.001

        truth = prediction.model_copy(update={"total_amount": 1898.16})
        assert stickler.evaluate(truth, prediction).field_scores["total_amount"] == 0.0
        forgiven = prediction.model_copy(update={"total_amount": 1898.61})
        assert stickler.evaluate(truth, forgiven).field_scores["total_amount"] == 1.0
        assert "1898.61, would be forgiven" in note

    def test_tool_first_is_one_call_in_the_recorded_fragments(self, tmp_path: Path) -> None:
        path = make(tmp_path / "r.json", [tool('{"name": "Alice", "age": 30}', [3, 10, 17])])
        seen: list[str] = []
        model = ReplayModel(path)

        def callback(**kwargs: Any) -> None:
            delta = kwargs.get("event", {}).get("contentBlockDelta", {}).get("delta", {})
            if "toolUse" in delta:
                seen.append(delta["toolUse"]["input"])

        result = Agent(model=model, system_prompt=SYSTEM, callback_handler=callback)(
            "Alice is 30.", structured_output_model=Person
        )
        assert result.structured_output == Person(name="Alice", age=30)
        assert seen == ['{"n', 'ame": "', 'Alice",', ' "age": 30}']
        assert model.played == 1

    def test_text_then_forced_retry(self, tmp_path: Path) -> None:
        path = make(tmp_path / "r.json", [text("Alice, 30."), tool('{"name": "Alice", "age": 30}', [9])])
        model, result = run(path)
        assert result.structured_output == Person(name="Alice", age=30)
        assert [r["tool_choice"] for r in model.requests] == [None, {"tool": {"name": "Person"}}]
        assert model.requests[1]["messages"][-1]["content"][0]["text"].startswith("You must format")

    def test_multi_call_validation_error_then_correction(self, tmp_path: Path) -> None:
        path = make(
            tmp_path / "r.json",
            [tool('{"name": "Alice"}', [4]), tool('{"name": "Alice", "age": 30}', [4], "tooluse_2")],
        )
        model, result = run(path)
        assert result.structured_output == Person(name="Alice", age=30)
        assert model.played == 2
        tool_result = model.requests[1]["messages"][2]["content"][0]["toolResult"]
        assert tool_result["status"] == "error"


class TestReplayErrors:
    def test_changed_prompt_on_call_one_names_path_values_and_command(self, tmp_path: Path) -> None:
        path = make(tmp_path / "r.json", [tool('{"name": "Alice", "age": 30}', [4])])
        with pytest.raises(ReplayMismatchError) as info:
            run(path, prompt="Bob is 40.")
        err = info.value
        assert (err.call, err.field_path, err.recorded, err.actual) == (
            1,
            "messages[0].content[0].text",
            "Alice is 30.",
            "Bob is 40.",
        )
        assert err.sdk_text_only is False
        message = str(err)
        assert f"model call 1 does not match recording '{path}'" in message
        assert "recorded: 'Alice is 30.'" in message and "now     : 'Bob is 40.'" in message
        assert "only SDK-generated text differs: no" in message
        assert "re-record: STRUCTSIM_NB_RECORD_MODE=rewrite" in message

    def test_changed_schema_on_call_two_arrives_wrapped_with_the_same_text(self, tmp_path: Path) -> None:
        path = make(tmp_path / "r.json", [text("Alice, 30."), tool('{"name": "Alice", "age": 30}', [9])])
        data = json.loads(path.read_text())
        data["interactions"][1]["request"]["messages"][2]["content"][0]["text"] = "Return only JSON."
        path.write_text(json.dumps(data))
        with pytest.raises(EventLoopException) as info:
            run(path)
        original = info.value.original_exception
        assert isinstance(original, ReplayMismatchError)
        assert original.call == 2 and original.field_path == "messages[2].content[0].text"
        assert str(original) in str(info.value)

    def test_a_difference_only_in_sdk_text_says_so(self, tmp_path: Path) -> None:
        path = make(tmp_path / "r.json", [tool('{"name": "Alice", "age": 30}', [4])])
        data = json.loads(path.read_text())
        spec = data["interactions"][0]["request"]["tool_specs"][0]
        spec["description"] = spec["description"].replace("IMPORTANT: This", "IMPORTANT: Older wording. This")
        del spec["inputSchema"]["json"]["properties"]["age"]["description"]  # an SDK without "Property age"
        path.write_text(json.dumps(data))
        with pytest.raises(ReplayMismatchError, match="only SDK-generated text differs: yes") as info:
            run(path)
        assert info.value.sdk_text_only is True
        assert info.value.field_path == "tool_specs[0].description"

    def test_added_schema_field_is_a_real_difference(self, tmp_path: Path) -> None:
        class Person(BaseModel):  # same name, one more field
            """A person."""

            name: str
            age: int
            email: str | None = None

        path = make(tmp_path / "r.json", [tool('{"name": "Alice", "age": 30}', [4])])
        with pytest.raises(ReplayMismatchError, match="only SDK-generated text differs: no") as info:
            run(path, schema=Person)
        assert info.value.field_path == "tool_specs[0].inputSchema.json.properties.email"
        assert info.value.recorded == "<missing>"

    def test_exhausted_never_repeats_an_answer(self, tmp_path: Path) -> None:
        path = make(tmp_path / "r.json", [tool('{"name": "Alice", "age": 30}', [4])])
        model = ReplayModel(path)
        agent = Agent(model=model, system_prompt=SYSTEM, callback_handler=None)
        agent("Alice is 30.", structured_output_model=Person)
        with pytest.raises(
            ReplayExhaustedError, match=r"asked for model call 2, but recording .* holds 1 call\(s\), all played"
        ):
            Agent(model=model, system_prompt=SYSTEM, callback_handler=None)(
                "Alice is 30.", structured_output_model=Person
            )

    @staticmethod
    def _with_an_extra_call(path: Path) -> Path:
        data = json.loads(path.read_text())
        extra = json.loads(json.dumps(data["interactions"][0]))
        extra["call"] = 2
        data["interactions"].append(extra)
        path.write_text(json.dumps(data))
        return path

    def test_unplayed_calls_are_reported(self, tmp_path: Path) -> None:
        path = self._with_an_extra_call(make(tmp_path / "r.json", [tool('{"name": "Alice", "age": 30}', [4])]))
        model, _ = run(path)
        assert model.unplayed() == [2]
        with pytest.raises(UnplayedCallsError, match=r"1 of 2 recorded model calls were never requested: call 2"):
            model.assert_all_played()

    def test_unplayed_calls_warn_and_log_when_a_with_block_ends(self, tmp_path: Path, caplog) -> None:
        path = self._with_an_extra_call(make(tmp_path / "r.json", [tool('{"name": "Alice", "age": 30}', [4])]))
        caplog.set_level(logging.WARNING, logger="structsim_nb.replay.player")
        with pytest.warns(UnplayedCallsWarning, match=r"1 of 2 recorded model calls were never requested") as seen:
            with ReplayModel(path) as model:
                Agent(model=model, system_prompt=SYSTEM, callback_handler=None)(
                    "Alice is 30.", structured_output_model=Person
                )
        assert seen[0].filename == __file__  # points at the user's with statement, not at the library
        assert "re-record to confirm: STRUCTSIM_NB_RECORD_MODE=rewrite" in str(seen[0].message)
        assert "unplayed=<[2]> | recorded model calls were never requested" in caplog.text
        with pytest.warns(UnplayedCallsWarning):
            assert model.check_all_played() == [2]

    def test_unplayed_calls_raise_when_strict_and_a_full_replay_is_silent(self, tmp_path: Path) -> None:
        path = self._with_an_extra_call(make(tmp_path / "r.json", [tool('{"name": "Alice", "age": 30}', [4])]))
        with pytest.raises(UnplayedCallsError, match="call 2"):
            with ReplayModel(path, strict=True) as model:
                Agent(model=model, system_prompt=SYSTEM, callback_handler=None)(
                    "Alice is 30.", structured_output_model=Person
                )
        with pytest.raises(UnplayedCallsError, match="call 2"):  # open_model's replay mode is strict
            with open_model(path, mode="replay") as model:
                Agent(model=model, system_prompt=SYSTEM, callback_handler=None)(
                    "Alice is 30.", structured_output_model=Person
                )
        complete = make(tmp_path / "complete.json", [tool('{"name": "Alice", "age": 30}', [4])])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with ReplayModel(complete) as model:
                Agent(model=model, system_prompt=SYSTEM, callback_handler=None)(
                    "Alice is 30.", structured_output_model=Person
                )
            assert model.check_all_played() == []

    def test_an_error_in_the_with_block_is_not_masked_by_the_unplayed_report(self, tmp_path: Path) -> None:
        path = make(tmp_path / "r.json", [tool('{"name": "Alice", "age": 30}', [4])])
        with pytest.raises(ReplayMismatchError):
            with ReplayModel(path, strict=True) as model:
                Agent(model=model, system_prompt=SYSTEM, callback_handler=None)("Bob.", structured_output_model=Person)

    def test_replay_errors_are_not_retried_as_throttling(self) -> None:
        # strands retries ModelThrottledException with back-off; a replay error must fail at once
        assert not issubclass(ReplayError, ModelThrottledException)
        assert issubclass(ReplayMismatchError, ReplayError) and issubclass(ReplayExhaustedError, ReplayError)

    @pytest.mark.filterwarnings("ignore::DeprecationWarning")
    def test_deprecated_structured_output_api_is_refused(self, tmp_path: Path) -> None:
        path = make(tmp_path / "r.json", [tool('{"name": "Alice", "age": 30}', [4])])
        with pytest.raises(NotImplementedError, match="structured_output_model=Person"):
            Agent(model=ReplayModel(path), callback_handler=None).structured_output(Person, "x")


def test_first_difference() -> None:
    assert first_difference({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]}) == ("a[1].b", 2, 3)
    assert first_difference([1], [1, 2]) == ("[1]", "<missing>", 2)
    assert first_difference({"x": 1}, {"x": 1}) is None


class TestNoLiveFallback:
    def test_a_mismatch_in_once_mode_with_a_file_raises_and_never_builds_the_live_model(self, tmp_path: Path) -> None:
        path = make(tmp_path / "r.json", [tool('{"name": "Alice", "age": 30}', [4])])
        before = path.read_text()
        built: list[str] = []

        def live() -> Model:
            built.append("live")
            return Scripted([tool('{"name": "Bob", "age": 40}', [4])])

        with pytest.raises(ReplayMismatchError, match="Replay never falls back to a live model"):
            with open_model(path, mode="once", live=live) as model:
                Agent(model=model, system_prompt=SYSTEM, callback_handler=None)(
                    "Bob is 40.", structured_output_model=Person
                )
        assert built == [] and path.read_text() == before

    def test_replay_opens_no_socket_and_reads_no_credentials(self, tmp_path: Path, monkeypatch) -> None:
        path = make(tmp_path / "r.json", [text("Alice, 30."), tool('{"name": "Alice", "age": 30}', [9])])

        def refuse(*args: Any, **kwargs: Any) -> None:
            raise AssertionError("replay must not touch the network")

        monkeypatch.setattr(socket.socket, "connect", refuse)
        monkeypatch.setattr(socket, "create_connection", refuse)
        for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
            monkeypatch.delenv(name, raising=False)
        model, result = run(path)
        assert result.structured_output == Person(name="Alice", age=30)
        assert model.played == 2

    def test_the_replay_model_takes_the_recorded_structured_output_flag(self, tmp_path: Path) -> None:
        path = make(tmp_path / "r.json", [tool('{"name": "Alice", "age": 30}', [4])])
        assert ReplayModel(path)._supports_structured_output is True  # Scripted sets it, like BedrockModel
        data = json.loads(path.read_text())
        data["provenance"]["supports_structured_output"] = False
        path.write_text(json.dumps(data))
        assert ReplayModel(path)._supports_structured_output is False
        assert ReplayModel(path).config["model_id"] == "replay:scripted"
