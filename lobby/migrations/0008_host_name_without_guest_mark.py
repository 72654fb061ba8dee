"""Tables recorded before 2026-11-28 hold a guest host's name with the English mark
("bea (guest)"); since then ``host_name`` holds the name alone, and the pages mark a
guest's in the reader's language (``Table.host_display_name``). This takes the mark
off the old rows, in one UPDATE. A guest's name never holds a space or a bracket
(accounts.identity.GUEST_NAME_RE), so the mark is never part of the name itself.
Reversed, the mark goes back on: what the code before read."""

from django.db import migrations
from django.db.models import Value
from django.db.models.functions import Concat, Left, Length

MARK = " (guest)"


def guest_hosts(apps):
    Table = apps.get_model("lobby", "Table")
    return Table.objects.filter(host_user__isnull=True).exclude(host_guest_token="")


def take_the_mark_off(apps, schema_editor):
    guest_hosts(apps).filter(host_name__endswith=MARK).update(
        host_name=Left("host_name", Length("host_name") - len(MARK))
    )


def put_the_mark_back(apps, schema_editor):
    guest_hosts(apps).exclude(host_name__endswith=MARK).update(host_name=Concat("host_name", Value(MARK)))


class Migration(migrations.Migration):
    dependencies = [
        ("lobby", "0007_chat"),
    ]

    operations = [
        migrations.RunPython(take_the_mark_off, put_the_mark_back),
    ]
