"""lobby 0008: a guest host recorded with the English mark ("bea (guest)", before
2026-11-28) is stored by name alone, and so reads in each reader's language; an
account's name stays as it is, and the migration runs back."""

from __future__ import annotations

import pytest
from django.utils import translation

from lobby.models import Table
from tests.migrating import latest_schema_after, migrate  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db(transaction=True)
BEFORE = [("lobby", "0007_chat")]
AFTER = [("lobby", "0008_host_name_without_guest_mark")]


def test_a_guest_host_recorded_with_the_english_mark_is_stored_by_name_alone(django_user_model):
    apps = migrate(BEFORE)
    Old = apps.get_model("lobby", "Table")
    ann = django_user_model.objects.create_user("ann", password="pw-ann-12345!")

    def table(**host) -> int:
        return Old.objects.create(game="viertris", seats_total=2, **host).pk

    marked = table(host_guest_token="guest-token-bea", host_name="bea (guest)")
    recorded_since = table(host_guest_token="guest-token-cai", host_name="cai")
    account = table(host_user_id=ann.pk, host_name="ann")
    gone_account = table(host_name="dan")  # its user deleted: no guest, no mark

    migrate(AFTER)
    # The model of today, on the columns this migration knows (later ones add more).
    tables = Table.objects.only("host_name", "host_user", "host_guest_token")
    names = dict(tables.values_list("pk", "host_name"))
    assert names == {marked: "bea", recorded_since: "cai", account: "ann", gone_account: "dan"}
    for language, bea, cai in (("de", "bea (Gast)", "cai (Gast)"), ("en", "bea (guest)", "cai (guest)")):
        with translation.override(language):
            assert tables.get(pk=marked).host_display_name == bea
            assert tables.get(pk=recorded_since).host_display_name == cai
            assert tables.get(pk=account).host_display_name == "ann"
            assert tables.get(pk=gone_account).host_display_name == "dan"

    apps = migrate(BEFORE)  # and back: the mark the code before read, on every guest host
    names = dict(apps.get_model("lobby", "Table").objects.values_list("pk", "host_name"))
    assert names == {marked: "bea (guest)", recorded_since: "cai (guest)", account: "ann", gone_account: "dan"}
