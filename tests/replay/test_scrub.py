"""Structural scrubbing: rules on decoded strings, tool-input JSON rewritten string by string, fragments re-split."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from structsim_nb.replay import scrub
from structsim_nb.replay.json_text import string_tokens
from structsim_nb.replay.secret_rules import builtin_rules, check_rules, is_secret_key

RULES = scrub.default_scrub_rules()

SAMPLES = {
    "aws_access_key": "AKIAIOSFODNN7EXAMPLE",
    "aws_session_token": "IQoJb3JpZ2luX2VjEXAMPLEtokenAAAAAAAAAAAAAA",
    "aws_secret_access_key": "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "aws_account_id": "arn:aws:bedrock:us-east-1:123456789012:inference-profile/x",
    "bearer_token": "Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345",
    "bedrock_api_key": "ABSKQmVkcm9ja0FQSUtleS1leGFtcGxlLWtleQ==",
    "github_token": "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
    "openai_api_key": "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD",
    "anthropic_api_key": "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123",
    "slack_token": "xoxb-1234567890-9876543210-abcdefghijklmnop",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
    "private_key": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----",
    "secret_assignment": "password: hunter2hunter2",
    "stripe_key": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "google_api_key": "AIzaSyA1234567890abcdefghijklmnopqrstuv",
    "basic_auth_password": "https://alice:s3cretpass@example.com/x",
}


class TestRules:
    @pytest.mark.parametrize(("rule", "text"), sorted(SAMPLES.items()))
    def test_each_kind_is_scrubbed_and_the_result_is_clean(self, rule: str, text: str) -> None:
        counts: dict[str, int] = {}
        scrubbed = scrub.scrub_text(f"before {text} after", RULES, counts)
        assert rule in counts
        assert scrub.find_secrets(scrubbed, list(check_rules())) == []
        assert scrubbed.startswith("before ") and scrubbed.endswith(" after")
        assert scrub.scrub_text(scrubbed, RULES) == scrubbed  # placeholders never match again

    def test_an_arn_keeps_its_shape(self) -> None:
        assert scrub.scrub_text("arn:aws:iam::123456789012:role/x", RULES) == "arn:aws:iam::<AWS_ACCOUNT_ID>:role/x"

    def test_a_private_key_cut_off_before_its_end_line_is_removed_to_the_end(self) -> None:
        assert scrub.scrub_text("key: -----BEGIN RSA PRIVATE KEY-----\nMIIEow", RULES) == "key: <PRIVATE_KEY>"

    def test_ordinary_invoice_text_is_left_alone(self) -> None:
        text = "Invoice 2016-10-03 WXYZ-TV, gross $1,898.61, order 123456, ID ABCD1234, see https://example.com/a"
        assert scrub.scrub_text(text, RULES) == text

    def test_literal_credentials_come_first_and_are_named(self) -> None:
        rules = scrub.default_scrub_rules(["s3cr3t-value-xyz", "short"])
        counts: dict[str, int] = {}
        assert scrub.scrub_text("token s3cr3t-value-xyz short", rules, counts) == "token <CREDENTIAL_IN_USE> short"
        assert counts == {"credentials_in_use": 1}

    def test_detect_secrets_patterns_are_used(self) -> None:
        names = {rule.name for rule in builtin_rules()}
        assert {"aws_access_key", "github_token", "slack_token", "stripe_key", "gitlab_token"} <= names

    @pytest.mark.parametrize("key", ["password", "db_password", "apiKey", "x-api-key", "client_secret", "token"])
    def test_secret_keys(self, key: str) -> None:
        assert is_secret_key(key)
        assert scrub.scrub_value({key: "anything", "n": {key: 3}}, RULES) == {key: "<REDACTED>", "n": {key: 3}}

    @pytest.mark.parametrize(
        "key", ["secretary", "token_count", "access_key_holder", "private_key_id", "passwordless", "max_tokens"]
    )
    def test_a_key_that_only_contains_a_secrets_name_keeps_its_value(self, key: str) -> None:
        # Words, not substrings: a secretary's name or a key holder's is data the agent extracted.
        assert not is_secret_key(key)
        assert scrub.scrub_value({key: "Jane Doe"}, RULES) == {key: "Jane Doe"}

    @pytest.mark.parametrize(
        "key", ["clientSecret", "SECRET_KEY", "aws_secret_access_key", "refreshToken", "privateKey"]
    )
    def test_secret_names_in_any_case_or_joining(self, key: str) -> None:
        assert is_secret_key(key)

    @pytest.mark.parametrize(
        ("text", "scrubbed"),
        [
            ("Authorization: Bearer abcdefghijklmnop1234567890", "Authorization: Bearer <BEARER_TOKEN>"),
            ("bearer eyJhbGciOi.x-y_z", "bearer <BEARER_TOKEN>"),
            ("Bearer abcdefghijklmnopqrstuvwxyz", "Bearer <BEARER_TOKEN>"),  # long enough to be one
            ("Payable to bearer certificates holders", "Payable to bearer certificates holders"),  # English
        ],
    )
    def test_a_bearer_token_is_not_an_english_word(self, text: str, scrubbed: str) -> None:
        assert scrub.scrub_text(text, RULES) == scrubbed

    def test_an_account_number_outside_an_arn_is_data(self) -> None:
        # Only the account id inside an ARN is scrubbed: a 12-digit bank or customer account number on an invoice is
        # what the agent extracts, and scrubbing it would change the recorded answer.
        text = "Account Number: 100234567890; arn:aws:bedrock:us-east-1:123456789012:inference-profile/x"
        assert scrub.scrub_text(text, RULES) == (
            "Account Number: 100234567890; arn:aws:bedrock:us-east-1:<AWS_ACCOUNT_ID>:inference-profile/x"
        )
        assert scrub.scrub_value({"account_number": "100234567890"}, RULES) == {"account_number": "100234567890"}


class TestStructural:
    def test_escaped_quotes_around_an_arn_stay_valid_json(self) -> None:
        value = {"note": 'see "arn:aws:bedrock:us-east-1:123456789012:x"\narn:aws:iam::123456789012:y\nend'}
        text = json.dumps(value)
        out = "".join(scrub.scrub_json_fragments([text[:30], text[30:]], RULES))
        assert json.loads(out) == scrub.scrub_value(value, RULES)

    def test_only_the_changed_string_is_rewritten(self) -> None:
        text = '{"a" :  1.50, "b": "AKIAIOSFODNN7EXAMPLE", "c": "\\u00e9"}'
        assert "".join(scrub.scrub_json_fragments([text], RULES)) == (
            '{"a" :  1.50, "b": "<AWS_ACCESS_KEY>", "c": "\\u00e9"}'
        )

    def test_a_secret_split_across_fragments_moves_the_boundary_to_its_end(self) -> None:
        assert scrub.scrub_fragments(["a AKIAIOSF", "ODNN7EXAMPLE b", " c"], RULES) == [
            "a <AWS_ACCESS_KEY>",
            " b",
            " c",
        ]

    def test_string_tokens_know_their_key(self) -> None:
        tokens = string_tokens('{"password": ["x", {"k": "y"}], "z": "w"}')
        assert [(t.is_key, t.key) for t in tokens] == [
            (True, None),
            (False, "password"),
            (True, None),
            (False, "k"),
            (True, None),
            (False, "z"),
        ]

    def test_events_scrub_text_reasoning_and_tool_blocks_as_joined_strings(self) -> None:
        events = [
            {"contentBlockDelta": {"delta": {"reasoningContent": {"text": "key AKIAIOSF"}}}},
            {"contentBlockDelta": {"delta": {"reasoningContent": {"text": "ODNN7EXAMPLE"}}}},
            {"contentBlockStop": {}},
            {"contentBlockDelta": {"delta": {"text": "ghp_A1b2C3d4E5f6G7h8I9j0"}}},
            {"contentBlockDelta": {"delta": {"text": "K1l2M3n4O5p6Q7r8"}}},
            {"contentBlockStop": {}},
            {"metadata": {"usage": {"inputTokens": 1}}},
        ]
        out = scrub.scrub_events(events, RULES)
        assert out[0]["contentBlockDelta"]["delta"]["reasoningContent"]["text"] == "key <AWS_ACCESS_KEY>"
        assert out[3]["contentBlockDelta"]["delta"]["text"] + out[4]["contentBlockDelta"]["delta"]["text"] == (
            "<GITHUB_TOKEN>"
        )
        assert out[6] == events[6]


SECRET_TEXT = st.sampled_from(sorted(SAMPLES.values()))
PLAIN_TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
STRINGS = st.one_of(PLAIN_TEXT, SECRET_TEXT, st.builds(lambda a, b, c: a + b + c, PLAIN_TEXT, SECRET_TEXT, PLAIN_TEXT))
KEYS = st.one_of(st.sampled_from(["name", "password", "api_key", "note", "arn"]), PLAIN_TEXT)
JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), STRINGS),
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(KEYS, children, max_size=4)),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(
    value=st.dictionaries(KEYS, JSON, max_size=5),
    cuts=st.lists(st.integers(min_value=0), max_size=5),
    ascii=st.booleans(),
)
def test_tool_input_scrubbed_as_text_parses_to_the_value_scrubbed_as_data(value, cuts, ascii) -> None:
    """The invariant replay relies on: what the agent assembles from scrubbed fragments equals the scrubbed request."""
    text = json.dumps(value, ensure_ascii=ascii)
    bounds = sorted({cut % (len(text) + 1) for cut in cuts})
    fragments = [text[a:b] for a, b in zip([0, *bounds], [*bounds, len(text)], strict=True)]
    out = scrub.scrub_json_fragments(fragments, RULES)
    assert len(out) == len(fragments)
    assert json.loads("".join(out)) == scrub.scrub_value(value, RULES)
