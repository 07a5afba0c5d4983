"""What the FCC notebook's agent is told: the system prompt and the user turn for one document."""

from __future__ import annotations

__all__ = ["SYSTEM_PROMPT", "user_prompt"]

SYSTEM_PROMPT = (
    "You extract data from the OCR text of FCC political-advertising invoices issued by TV and radio "
    "stations. Copy names and free text exactly as printed. Give amounts as plain numbers in dollars. "
    "Give dates as YYYY-MM-DD. List every broadcast line in printed order. Leave a field null when the "
    "invoice does not show it; never guess."
)


def user_prompt(text: str) -> str:
    """The user turn sent for one document: a fixed instruction, then the OCR text."""
    return f"Extract the invoice fields from this FCC invoice.\n\n<ocr>\n{text}\n</ocr>"
