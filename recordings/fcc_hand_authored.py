"""Write the hand-authored FCC recordings: what `03_fcc_invoices_bedrock.ipynb` replays offline.

Nothing here calls a model. The answers below are written by hand; the requests are not: each
document runs through the real strands `Agent` (same system prompt, user prompt and output
model as the notebook) against a stub provider that answers with these tool inputs as Bedrock
ConverseStream events, and the recorder (`structsim_nb.replay.recorder.RecordingModel`) captures what
`Model.stream()` received. The provenance says `hand_authored`.

Each answer starts from the document's label and applies the errors listed in `MISTAKES`, so
the notebook's scores spread across the range for reasons a reader can check. The documents are
the bundled sample (`structsim_nb/fcc/data/fcc_sample.parquet`: invented invoices in the hub's
row format), including its odd label values: a date that is no real day, a start date labelled
with a printed range, `LineItems: null`.

Run from the repository root: `python recordings/fcc_hand_authored.py`. A real capture replaces
these files: `structsim-nb record-fcc` (needs Bedrock access).
"""

from __future__ import annotations

import copy
import importlib.metadata
import json
import platform
from collections.abc import AsyncGenerator, Callable
from typing import Any

from pydantic import BaseModel
from strands import Agent
from strands.models import Model

from structsim_nb import fcc
from structsim_nb._io import write_text_atomic
from structsim_nb.fcc.data.build_sample import IDS
from structsim_nb.fcc.models import FCCInvoice, FCCInvoiceTuned, parse_date
from structsim_nb.replay.cassette import Interaction, Provenance, RecordedRequest, Recording, write_recording
from structsim_nb.replay.recorder import RecordingModel

Answer = dict[str, Any]


def _swap_parties(answer: Answer) -> None:
    answer["Agency"], answer["Advertiser"] = answer["Advertiser"], answer["Agency"]


def _set(**values: Any) -> Callable[[Answer], None]:
    return lambda answer: answer.update(values)


def _line(index: int, **values: Any) -> Callable[[Answer], None]:
    return lambda answer: answer["LineItems"][index].update(values)


def _each_line(change: Callable[[dict[str, Any]], None]) -> Callable[[Answer], None]:
    return lambda answer: [change(item) for item in answer["LineItems"]]


def _year_2017(item: dict[str, Any]) -> None:
    for key in ("LineItemStartDate", "LineItemEndDate"):
        item[key] = item[key].replace("2016-", "2017-")


#: Document id -> (what the imagined extractor got wrong, the edits that make it so).
MISTAKES: dict[str, tuple[str, list[Callable[[Answer], None]]]] = {
    IDS[0]: ("nothing: a perfect extraction", []),
    IDS[1]: (
        "missed the last line (Sunday Football Pre, dated OCT 30 16); Today Show rate 475.00 read as 457.00",
        [lambda a: a["LineItems"].pop(), _line(1, LineItemRate=457.0)],
    ),
    IDS[2]: (
        "invented a line item from 'schedule detail billed on attached order' (the label's LineItems is null)",
        [lambda a: a["LineItems"].append({"LineItemDescription": "Schedule detail per attached order"})],
    ),
    IDS[3]: (
        "nothing wrong, but the label's impossible end date 09/31/16 is written as the real day 2016-09-30: the "
        "label is read leniently, its printed date compared as text, which no date parser reads",
        [],
    ),
    IDS[4]: (
        "a direct buy read as placed by the station: Agency 'KTWR-AM 1340 (radio)', AgencyCommission 0.00",
        [_set(Agency="KTWR-AM 1340 (radio)", AgencyCommission=0.0)],
    ),
    IDS[5]: (
        "nothing wrong, but the two same-named lines come back in reverse order",
        [lambda a: a["LineItems"].reverse()],
    ),
    IDS[6]: (
        "Agency and Advertiser swapped; 'M-F' written 'Mon-Fri' on three lines; the last line's printed range "
        "'11/05/16 - 11/06/16' (its label's start date) written as its first day",
        [_swap_parties, *(_line(i, LineItemDays="Mon-Fri") for i in range(3))],
    ),
    IDS[7]: (
        "net amount taken from the gross total, commission left out, every air date a year late, "
        "Late News rate 640.00 read as 460.00, terms 'Net 30' paraphrased as '30 days'",
        [
            lambda a: a.update(NetAmountDue=a["GrossTotal"], AgencyCommission=None, PaymentTerms="30 days"),
            _each_line(_year_2017),
            _line(6, LineItemRate=460.0),
        ],
    ),
}

#: Documents whose tuned-run answer copies dates as printed ("10/03/16") instead of ISO.
PRINTED_DATES_IN_TUNED_RUN = {IDS[0], IDS[1], IDS[5]}

#: How the imagined extractor writes a printed date no parser reads as one day: the day it means.
ODD_DATES = {"09/31/16": "2016-09-30", "11/05/16 - 11/06/16": "2016-11-05"}


def _plain_answer(doc: fcc.FCCDocument) -> Answer:
    """The label as an extractor following the system prompt would write it (ISO dates, numbers)."""
    raw = copy.deepcopy(doc.raw_label)
    raw["LineItems"] = raw.get("LineItems") or []
    for item in raw["LineItems"]:
        for key in ("LineItemStartDate", "LineItemEndDate"):
            printed = item[key]
            item[key] = ODD_DATES[printed] if printed in ODD_DATES else parse_date(printed).isoformat()
    answer = FCCInvoice.model_validate(raw).model_dump(mode="json")
    for edit in MISTAKES[doc.id][1]:
        edit(answer)
    return answer


def _tuned_answer(doc: fcc.FCCDocument, plain: Answer) -> Answer:
    answer = copy.deepcopy(plain)
    if doc.id in PRINTED_DATES_IN_TUNED_RUN:
        for item in answer["LineItems"]:
            for key in ("LineItemStartDate", "LineItemEndDate"):
                if item.get(key):
                    item[key] = parse_date(item[key]).strftime("%m/%d/%y")
    return answer


def _fragments(text: str, size: int = 48) -> list[str]:
    return [text[start : start + size] for start in range(0, len(text), size)]


class _HandAuthoredBedrock(Model):
    """Answers call n with tool input `answers[n]`, as Bedrock ConverseStream events."""

    _supports_structured_output = True  # as BedrockModel, so a forced retry would look the same

    def __init__(self, answers: list[Answer], tool_name: str) -> None:
        self.answers, self.tool_name, self.calls = answers, tool_name, 0
        self.config = {"model_id": fcc.DEFAULT_MODEL_ID}

    def update_config(self, **model_config: Any) -> None:
        self.config.update(model_config)

    def get_config(self) -> dict[str, Any]:
        return dict(self.config)

    async def stream(self, messages: Any, tool_specs: Any = None, system_prompt: Any = None, **kwargs: Any) -> Any:
        answer = self.answers[self.calls]
        self.calls += 1
        tool_id = f"tooluse_fcc_handauthored_{self.calls:03d}"
        yield {"messageStart": {"role": "assistant"}}
        start = {"toolUse": {"toolUseId": tool_id, "name": self.tool_name}}
        yield {"contentBlockStart": {"contentBlockIndex": 0, "start": start}}
        for piece in _fragments(json.dumps(answer)):
            yield {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": piece}}}}
        yield {"contentBlockStop": {"contentBlockIndex": 0}}
        yield {"messageStop": {"stopReason": "tool_use"}}
        usage = {"inputTokens": 0, "outputTokens": 0, "totalTokens": 0}
        yield {"metadata": {"usage": usage, "metrics": {"latencyMs": 0}}}

    async def structured_output(self, *args: Any, **kwargs: Any) -> AsyncGenerator[Any, None]:
        raise NotImplementedError("only the agent loop is used")
        yield  # pragma: no cover


def _record(docs: list[fcc.FCCDocument], answers: list[Answer], output_model: type[BaseModel]) -> Recording:
    recorder = RecordingModel(_HandAuthoredBedrock(answers, output_model.__name__))
    for doc in docs:
        agent = Agent(model=recorder, system_prompt=fcc.SYSTEM_PROMPT, callback_handler=None)
        result = agent(fcc.user_prompt(doc.text), structured_output_model=output_model)
        assert result.structured_output is not None, doc.id
    versions = {"python": platform.python_version()}
    for name in ("strands-agents", "pydantic"):
        versions[name] = importlib.metadata.version(name)
    listed = "; ".join(f"{key}: {why}" for key, (why, _) in MISTAKES.items())
    provenance = Provenance(
        source="hand_authored",
        recorded_at=None,
        note=f"{fcc.HAND_AUTHORED_NOTE} Output model {output_model.__name__}. Deliberate errors: {listed}.",
        model_id=fcc.DEFAULT_MODEL_ID,
        provider="strands.models.bedrock.BedrockModel (wire format imitated)",
        region=None,
        streaming=True,
        supports_structured_output=True,
        sdk_versions=versions,
        rerecord_command=fcc.RERECORD_COMMAND,
    )
    interactions = [
        Interaction(call=n, request=RecordedRequest.model_validate(call["request"]), events=call["events"])
        for n, call in enumerate(recorder.calls, start=1)
    ]
    return Recording(provenance=provenance, interactions=interactions)


def main() -> None:
    settings = fcc.RunSettings()
    docs = settings.load()
    assert [doc.id for doc in docs] == list(MISTAKES), "the sample changed; update MISTAKES"
    plain = [_plain_answer(doc) for doc in docs]
    tuned = [_tuned_answer(doc, answer) for doc, answer in zip(docs, plain, strict=True)]
    paths = [fcc.recording_path(kind) for kind in ("plain", "tuned", "settings")]
    write_recording(_record(docs, plain, FCCInvoice), paths[0])
    write_recording(_record(docs, tuned, FCCInvoiceTuned), paths[1])
    write_text_atomic(paths[2], settings.to_json())
    print("wrote " + ", ".join(map(str, paths)))  # noqa: T201 - a script's report


if __name__ == "__main__":
    main()
