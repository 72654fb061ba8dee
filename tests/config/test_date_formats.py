"""One format per language for a time of day, a date, and a date with a time (issue 49,
point 23; config/formats): the chat's line, the profile and the ledger write the same
instant alike, and the chat's page script (static/js/datetimes.js) writes what the
server writes."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import formats, translation

from accounts.models import ChipTransaction
from lobby import chat
from lobby.models import ChatMessage
from tests.needs import need_node

ROOT = Path(__file__).resolve().parents[2]
INSTANT = dt.datetime(2026, 11, 29, 15, 29, tzinfo=dt.UTC)
# Each language's time of day, date, and date with time of INSTANT.
EXPECTED = {
    "en": ("3:29 PM", "Nov 29, 2026", "Nov 29, 2026, 3:29 PM"),
    "de": ("15:29", "29.11.2026", "29.11.2026, 15:29"),
    "es": ("15:29", "29/11/2026", "29/11/2026, 15:29"),
    "zh-hans": ("15:29", "2026年11月29日", "2026年11月29日 15:29"),
}
# Instants that tell formats apart: a morning hour (padding), midnight and noon (12-hour
# clocks), single-digit days and months, each month's name.
INSTANTS = [
    INSTANT,
    dt.datetime(2026, 9, 5, 0, 5, tzinfo=dt.UTC),
    dt.datetime(2027, 1, 2, 9, 7, tzinfo=dt.UTC),
    *(dt.datetime(2026, month, 1, 12, 0, tzinfo=dt.UTC) for month in range(1, 13)),
]
KINDS = {"time": "TIME_FORMAT", "date": "DATE_FORMAT", "datetime": "DATETIME_FORMAT"}


def test_every_language_of_the_site_has_its_formats():
    assert sorted(EXPECTED) == sorted(code for code, _ in settings.LANGUAGES)


@pytest.mark.parametrize("language", EXPECTED)
def test_each_language_has_one_format_for_each_kind(language):
    with translation.override(language):
        assert formats.get_format("SHORT_DATE_FORMAT") == formats.get_format("DATE_FORMAT")
        assert formats.get_format("SHORT_DATETIME_FORMAT") == formats.get_format("DATETIME_FORMAT")


@pytest.mark.parametrize("language", EXPECTED)
def test_the_chat_the_profile_and_the_ledger_write_an_instant_alike(client, host, language):
    time_text, date_text, datetime_text = EXPECTED[language]
    host.language = language
    host.date_joined = INSTANT
    host.save(update_fields=["language", "date_joined"])
    ChipTransaction.objects.filter(user=host).update(created_at=INSTANT)
    client.force_login(host)
    page = client.get(reverse("profile")).content.decode()
    message = ChatMessage(pk=7, room="lobby", author_key="u1", author_name="host", text="gg", created_at=INSTANT)
    line = chat.message_in(language, chat.fields_of(message))

    profile_since = page.split("</h1>", 1)[1].split("</p>", 1)[0]
    ledger = page.split('id="ledger"', 1)[1].split("</table>", 1)[0]
    assert f'<time datetime="{INSTANT.isoformat()}">{time_text}</time>' in line
    assert date_text in profile_since
    assert f"<td>{datetime_text}</td>" in ledger
    # One format: the date with a time is the date and the time of day, joined.
    assert datetime_text.startswith(date_text) and datetime_text.endswith(time_text)


def _server_texts() -> list[str]:
    texts = []
    for language in EXPECTED:
        with translation.override(language):
            texts += [formats.date_format(when, name) for when in INSTANTS for name in KINDS.values()]
    return texts


def _cases() -> list[list[str]]:
    return [[when.isoformat(), language, kind] for language in EXPECTED for when in INSTANTS for kind in KINDS]


# Runs static/js/datetimes.js's whenText on [iso, language, kind] cases, in UTC.
SCRIPT = """
import { whenText } from "./static/js/datetimes.js";
const cases = JSON.parse(process.argv[1]);
console.log(JSON.stringify(cases.map(([iso, language, kind]) => whenText(iso, language, kind, "UTC"))));
"""


def test_the_chat_script_writes_what_the_server_writes():
    node = need_node()
    run = subprocess.run(
        [node, "--input-type=module", "-e", SCRIPT, json.dumps(_cases())],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=True,
    )
    assert json.loads(run.stdout) == _server_texts()
