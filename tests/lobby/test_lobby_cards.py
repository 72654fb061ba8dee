"""The lobby opens on one card per game (issue 32, point 3): its name, what it is, the
people at its tables, its games running and tables open, and its actions."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games.registry import GAMES
from lobby import quickplay, selectors, services
from lobby.models import Table
from tests.personas import guest, ref


def card(page: str, slug: str) -> str:
    found = re.search(rf'<li class="lobby-card" id="card-{slug}">(.*?)</li>', page, re.S)
    assert found, f"no card for {slug}"
    return found.group(1)


def number(html: str, name: str, slug: str) -> int:
    return int(re.search(rf'<dd id="{name}-{slug}">(\d+)</dd>', html).group(1))


def test_every_game_has_a_card_with_its_name_what_it_is_and_its_actions(client, db):
    page = client.get(reverse("lobby:index")).content.decode()
    for slug, spec in GAMES.items():
        html = card(page, slug)
        assert f"<h3>{spec.name}</h3>" in html
        assert str(spec.tagline).replace("'", "&#x27;") in html
        assert f'action="{reverse("lobby:practice", args=[slug])}"' in html
        assert f'aria-label="Practise {spec.name} against a bot">Practise against a bot</button>' in html
        assert f'href="{reverse("lobby:create", args=[slug])}" aria-label="New {spec.name} table">' in html
        assert f'href="{reverse("games:how_to_play", args=[slug])}" aria-label="How to play {spec.name}">' in html
        assert ("Play solo" in html) == (slug == "tetrix")
    assert f'action="{reverse("lobby:solo", args=["tetrix"])}"' in card(page, "tetrix")
    assert "New TetriWar table</a>" not in page  # the row of eleven buttons is gone


def test_every_card_plays_now_friendly_or_for_a_stake_when_signed_in(client, host):
    page = client.get(reverse("lobby:index")).content.decode()
    for slug, spec in GAMES.items():
        html = card(page, slug)
        assert f'action="{reverse("lobby:play_now", args=[slug])}"' in html
        assert f'aria-label="Play {spec.name} now">Play now</button>' in html
        assert 'name="stake"' not in html  # a visitor plays friendly (guests cannot stake)
    client.force_login(host)
    html = card(client.get(reverse("lobby:index")).content.decode(), "viertris")
    assert '<select name="stake"' in html
    assert [int(v) for v in re.findall(r'<option value="(\d+)"', html)] == list(quickplay.STAKES)


def test_the_cards_count_people_at_each_games_tables_and_its_games(client, host, opponent, outsider, make_table):
    first = make_table(ref(host))
    second = make_table(ref(opponent))
    services.seat_take(table_id=first.pk, player=ref(opponent), number=2)
    # The host with two tabs open counts once; the opponent at both tables, once; a
    # guest once; two anonymous pages twice; the outsider's page of a closed table not at all.
    for n, player in enumerate([ref(host), ref(host), ref(opponent), guest("Zed", "zed-token"), None]):
        services.watcher_add(table_id=first.pk, channel_name=f"first.{n}", player=player)
    services.watcher_add(table_id=second.pk, channel_name="second.0", player=ref(opponent))
    services.watcher_add(table_id=second.pk, channel_name="second.1", player=None)
    closed = make_table(ref(outsider))
    services.watcher_add(table_id=closed.pk, channel_name="closed.0", player=ref(outsider))
    services.table_close(table_id=closed.pk, reason="test")
    Table.objects.filter(pk=second.pk).update(status=Table.Status.RUNNING)
    selectors.lobby_changed(second.pk)

    page = client.get(reverse("lobby:index")).content.decode()
    tetriwar = card(page, "tetriwar")
    assert number(tetriwar, "online", "tetriwar") == 5  # host, opponent, Zed, two anonymous pages
    assert number(tetriwar, "running", "tetriwar") == 1
    assert number(tetriwar, "waiting", "tetriwar") == 1
    assert "Players online" in tetriwar and "Games running" in tetriwar and "Open tables" in tetriwar
    for slug in GAMES.keys() - {"tetriwar"}:
        assert [number(card(page, slug), name, slug) for name in ("online", "running", "waiting")] == [0, 0, 0]


def test_the_counts_are_read_once_per_change_of_the_lobby(client, host, make_table, django_assert_num_queries):
    table = make_table(ref(host))
    assert selectors.game_activity()["tetriwar"].waiting == 1
    with django_assert_num_queries(0):
        selectors.game_activity()
    services.watcher_add(table_id=table.pk, channel_name="page.1", player=ref(host))
    assert selectors.game_activity()["tetriwar"].online == 1


@pytest.mark.parametrize("game", [None, "viertris"])
def test_the_tables_below_the_cards_still_filter_by_game(client, host, make_table, game):
    make_table(ref(host))
    url = reverse("lobby:index") + (f"?game={game}" if game else "")
    page = client.get(url).content.decode()
    cards, _, tables = page.partition('id="tables-heading"')
    assert cards.count('class="lobby-card"') == len(GAMES)  # every game's card, whatever the filter
    assert ("hostess&#x27;s table" in tables) == (game is None)
