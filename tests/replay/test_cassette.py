"""The recording format: load, validate, and the precise message for each kind of bad file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from structsim_nb.errors import (
    RecordingAssemblyError,
    RecordingFormatError,
    RecordingNotFoundError,
    RecordingVersionError,
)
from structsim_nb.replay.cassette import (
    FORMAT_VERSION,
    assemble,
    dump_recording,
    from_jsonable,
    load_recording,
    parse_recording,
    to_jsonable,
    write_recording,
)

COMMITTED = Path(__file__).resolve().parent.parent.parent / "recordings" / "invoice_walkthrough.json"


def data() -> dict:
    return json.loads(COMMITTED.read_text())


def write(tmp_path: Path, content: dict | str) -> Path:
    path = tmp_path / "r.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def test_committed_recording_loads_and_round_trips_byte_for_byte() -> None:
    recording = load_recording(COMMITTED)
    assert recording.format_version == FORMAT_VERSION
    assert recording.provenance.source == "hand_authored" and recording.provenance.recorded_at is None
    assert "three deliberate extraction errors" in recording.provenance.note
    assert dump_recording(recording) == COMMITTED.read_text()


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(RecordingNotFoundError, match=r"no recording at '.*nope.json'. Replay never calls a live model"):
        load_recording(tmp_path / "nope.json")


def test_corrupt_json(tmp_path: Path) -> None:
    with pytest.raises(RecordingFormatError, match=r"must be JSON; it is not \(Expecting value at line 1, column 1\)"):
        load_recording(write(tmp_path, "not json"))


def test_not_a_recording(tmp_path: Path) -> None:
    with pytest.raises(RecordingFormatError, match=r"must have \"format\": \"structsim-nb/recording\"; got None"):
        load_recording(write(tmp_path, {"turns": []}))


def test_newer_format_version(tmp_path: Path) -> None:
    content = data()
    content["format_version"] = 2
    with pytest.raises(
        RecordingVersionError, match=r"has format_version 2; this structsim-nb reads version 1 only. Upgrade"
    ):
        load_recording(write(tmp_path, content))


def test_newer_format_version_is_reported_before_any_field_it_may_have_changed(tmp_path: Path) -> None:
    content = {"format": "structsim-nb/recording", "format_version": 7, "interactions": {"renamed": []}}
    with pytest.raises(RecordingVersionError, match=r"format_version 7; .* Upgrade structsim-nb to read it") as info:
        load_recording(write(tmp_path, content))
    assert info.value.path == str(tmp_path / "r.json")


@pytest.mark.parametrize(("version", "shown"), [(0, "0"), (None, "None"), ("1", "'1'"), (True, "True"), (1.0, "1.0")])
def test_older_or_missing_format_version_says_re_record(tmp_path: Path, version: object, shown: str) -> None:
    content = data()
    content["format_version"] = version
    with pytest.raises(RecordingVersionError, match=rf"has format_version {shown}; .* Re-record it with this version"):
        load_recording(write(tmp_path, content))


def test_invalid_field_names_the_path(tmp_path: Path) -> None:
    content = data()
    content["interactions"][0]["request"]["tool_choice_kind"] = "forced"
    with pytest.raises(
        RecordingFormatError, match=r"interactions\[0\]\.request: Value error, tool_choice_kind must follow"
    ):
        load_recording(write(tmp_path, content))


def test_hand_authored_file_cannot_claim_a_recording_time(tmp_path: Path) -> None:
    content = data()
    content["provenance"]["recorded_at"] = "2026-01-01T00:00:00Z"
    with pytest.raises(RecordingFormatError, match="hand-authored file was never recorded"):
        load_recording(write(tmp_path, content))


def test_unknown_event_key(tmp_path: Path) -> None:
    content = data()
    content["interactions"][0]["events"].append({"throttlingException": {}})
    with pytest.raises(RecordingFormatError, match=r"events\[\d+\] must have exactly one key"):
        load_recording(write(tmp_path, content))


def test_events_that_do_not_assemble_into_a_tool_call(tmp_path: Path) -> None:
    content = data()
    events = content["interactions"][0]["events"]
    deltas = [e for e in events if "toolUse" in e.get("contentBlockDelta", {}).get("delta", {})]
    events.remove(deltas[-1])  # truncate the streamed JSON
    with pytest.raises(RecordingAssemblyError, match=r"call 1\) does not assemble .* input is not valid JSON"):
        load_recording(write(tmp_path, content))


def test_a_tool_block_without_a_stop_is_an_assembly_error(tmp_path: Path) -> None:
    content = data()
    events = content["interactions"][0]["events"]
    events.remove({"contentBlockStop": {"contentBlockIndex": 1}})
    with pytest.raises(RecordingAssemblyError, match=r"tool block 'Invoice' never stops"):
        load_recording(write(tmp_path, content))


def test_assemble_rejects_a_tool_block_without_id() -> None:
    events = [{"contentBlockStart": {"start": {"toolUse": {"name": "X"}}}}, {"contentBlockStop": {}}]
    with pytest.raises(ValueError, match="no toolUseId or name; strands would drop it"):
        assemble(events)


def test_a_tool_named_in_its_first_delta_assembles_as_strands_reads_it() -> None:
    # Some models send toolUseId and name in the first toolUse delta instead of a contentBlockStart.
    events = [
        {"contentBlockDelta": {"delta": {"toolUse": {"toolUseId": "t1", "name": "X", "input": '{"a":'}}}},
        {"contentBlockDelta": {"delta": {"toolUse": {"input": " 1}", "name": "ignored"}}}},
        {"contentBlockStop": {}},
        {"messageStop": {"stopReason": "tool_use"}},
    ]
    assert assemble(events).content == [{"toolUse": {"toolUseId": "t1", "name": "X", "input": {"a": 1}}}]
    with pytest.raises(ValueError, match="outside a tool block"):
        assemble([{"contentBlockDelta": {"delta": {"toolUse": {"input": "{}"}}}}])


@pytest.mark.parametrize("stop", [{}, {"stopReason": None}, None])
def test_a_message_stop_without_a_stop_reason_is_an_assembly_error(stop: object) -> None:
    # strands reads event["stopReason"]: without one, replay would fail inside the agent with a bare KeyError.
    with pytest.raises(ValueError, match=r"events\[1\]: messageStop must hold a stopReason"):
        assemble([{"contentBlockDelta": {"delta": {"text": "hi"}}}, {"messageStop": stop}])


def test_bytes_survive_the_json_round_trip() -> None:
    event = {"contentBlockDelta": {"delta": {"reasoningContent": {"redactedContent": b"\x00opaque"}}}}
    stored = json.loads(json.dumps(to_jsonable(event)))
    assert stored["contentBlockDelta"]["delta"]["reasoningContent"]["redactedContent"] == {"$bytes": "AG9wYXF1ZQ=="}
    assert from_jsonable(stored) == event
    assert from_jsonable({"$bytes": "not base64!"}) == {"$bytes": "not base64!"}  # only valid base64 is bytes
    assert from_jsonable({"$bytes": "AA==", "other": 1}) == {"$bytes": "AA==", "other": 1}


def test_a_lone_surrogate_is_written_as_its_escape_and_reads_back(tmp_path: Path) -> None:
    # A model that cut an emoji's escape in half: UTF-8 cannot hold the lone surrogate, JSON's escape can.
    content = data()
    content["interactions"][0]["request"]["messages"][0]["content"][0]["text"] += " cut \ud83d"
    recording = parse_recording(json.dumps(content))
    path = write_recording(recording, tmp_path / "s.json")
    assert "cut \\ud83d" in path.read_text(encoding="utf-8")
    assert load_recording(path) == recording


def test_parse_recording_without_a_file() -> None:
    assert parse_recording(COMMITTED.read_text()).interactions[0].call == 1
