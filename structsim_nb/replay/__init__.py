"""Replay and record agent exchanges.

`cassette` is the recording file format, `player` the `ReplayModel` that answers from a recording,
`recorder` the `RecordingModel` and `record_exchange`/`open_model` that write one, `scrub` (with
`secret_rules` and `json_text`) takes secrets out, `providers/` builds the live model a recording is
made against (Bedrock, OpenAI, Anthropic), `schema` reads `--schema`, and `pytest_plugin` gives
tests the `recorded_model` fixture and `--record-mode`.
"""

from .cassette import Recording, load_recording, write_recording
from .player import ReplayModel
from .recorder import RecordingModel, RecordMode, RecordResult, open_model, record_exchange

__all__ = [
    "RecordMode",
    "RecordResult",
    "Recording",
    "RecordingModel",
    "ReplayModel",
    "load_recording",
    "open_model",
    "record_exchange",
    "write_recording",
]
