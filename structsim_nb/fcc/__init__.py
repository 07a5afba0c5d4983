"""FCC political-advertising invoices (`amazon-agi/RealKIE-FCC-Verified`), for the FCC notebook.

`loader` reads the dataset into documents and cases (from the hub, a local file or folder in any
format `datasets` reads, or a `Dataset`), `models` holds the invoice schemas, `schema` builds a
model from the dataset's own `json_schema` column, `prompts` says what the agent is told, and
`run` chooses live, replay or record and re-records the notebook (`structsim-nb record-fcc`).
`data/` holds the bundled offline sample, in the hub's Parquet format (`data/README.md`).
"""

from .loader import FCCDocument, fcc_cases, load_fcc
from .models import FCCInvoice, FCCInvoiceTuned, FCCLineItem, FCCLineItemTuned
from .prompts import SYSTEM_PROMPT, user_prompt
from .run import (
    DEFAULT_MODEL_ID,
    HAND_AUTHORED_NOTE,
    RERECORD_COMMAND,
    Mode,
    RunSettings,
    choose_mode,
    describe_answers,
    model_id,
    open_fcc_model,
    recording_path,
    run_settings,
)
from .schema import model_from_json_schema

__all__ = [
    "DEFAULT_MODEL_ID",
    "HAND_AUTHORED_NOTE",
    "RERECORD_COMMAND",
    "SYSTEM_PROMPT",
    "FCCDocument",
    "FCCInvoice",
    "FCCInvoiceTuned",
    "FCCLineItem",
    "FCCLineItemTuned",
    "Mode",
    "RunSettings",
    "choose_mode",
    "describe_answers",
    "fcc_cases",
    "load_fcc",
    "model_from_json_schema",
    "model_id",
    "open_fcc_model",
    "recording_path",
    "run_settings",
    "user_prompt",
]
