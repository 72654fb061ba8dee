"""Names stored language-neutral and worded for each reader (issue 30, points 8 and 10).

Bots: every bot at a table has a name of its own, and the word "bot" and its level
are in the reader's language wherever the name shows: the seat panel (page and the
fragment pushed to a socket), the boards, the logs of moves, the results, replays
and the admin. Default table names ("hostess's table", "… practice", "… solo") are
kept as a kind and a name, and worded for each reader: the lobby's rows (page and
pushed), the table page's title and heading, the admin; a typed name stays as typed."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import translation

from accounts.identity import SESSION_GUEST_NAME, SESSION_GUEST_TOKEN, PlayerRef
from games.registry import GAMES
from lobby import broadcast, services
from lobby.models import Table
from tests.games.test_replays import recorded_bots_game
from tests.personas import guest, ref

pytestmark = pytest.mark.django_db
COOKIE = settings.LANGUAGE_COOKIE_NAME


def reader(language: str, user=None) -> Client:
    client = Client()
    client.cookies[COOKIE] = language
    if user is not None:
        client.force_login(user)
    return client


def page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def twelve_seats_of_bots(host) -> Table:
    spec = GAMES["thirdoption"]
    table = services.table_create(
        player=ref(host), game="thirdoption", options=spec.options_form.defaults(), seats_total=12
    )
    for number in range(2, 13):
        services.bot_add(table_id=table.pk, player=ref(host), number=number, level="greedy")
    return table


# --- bots -------------------------------------------------------------------------------------------
def test_every_bot_at_a_table_has_a_name_of_its_own(host):
    table = twelve_seats_of_bots(host)
    names = [seat.display_name for seat in table.seats.exclude(bot_level="")]
    assert len(names) == 11 and len(set(names)) == 11
    assert names[:3] == ["Alan (bot, greedy)", "Grace (bot, greedy)", "Edsger (bot, greedy)"]
    # stored language-neutral: the name alone, the level beside it
    assert set(table.seats.exclude(bot_level="").values_list("bot_level", flat=True)) == {"greedy"}
    assert "Bot" not in "".join(table.seats.values_list("name", flat=True))


def test_a_practice_tables_bots_have_names_of_their_own(host):
    """Block-Killer's practice table has as many bots as the game needs at least: two
    (issue 30: it read "Bot (greedy) attacks Bot (greedy)")."""
    for kind, bots in (("tetriwar", ["Alan (bot, medium)"]), ("blockkiller", ["Alan (bot, greedy)", "Grace (bot, greedy)"])):
        table = services.practice_create(player=ref(host), game=kind)
        assert [s.display_name for s in table.seats.exclude(bot_level="")] == bots


@pytest.mark.parametrize(
    "language,words", [("en", "Alan (bot, hard)"), ("de", "Alan (Bot, schwer)"), ("es", "Alan (bot, difícil)"),
                       ("zh-hans", "Alan（机器人，困难）")],
)
def test_a_bots_name_reads_in_each_readers_language(host, make_table, language, words):
    table = make_table(ref(host), seats=3)
    seat = services.bot_add(table_id=table.pk, player=ref(host), number=2, level="hard")
    with translation.override(language):
        assert seat.display_name == words


def test_the_table_page_and_its_pushed_seat_panel_show_bots_in_the_readers_language(host, make_table):
    table = make_table(ref(host), seats=4)
    services.bot_add(table_id=table.pk, player=ref(host), number=2, level="easy")
    services.bot_add(table_id=table.pk, player=ref(host), number=3, level="hard")
    url = table.get_absolute_url()
    german, chinese = page(reader("de", host), url), page(reader("zh-hans", host), url)
    assert "Alan (Bot, leicht)" in german and "Grace (Bot, schwer)" in german and "(bot," not in german
    assert "Alan（机器人，简单）" in chinese and "Grace（机器人，困难）" in chinese
    # the host's bot levels, in the reader's words
    assert '<option value="medium" selected>mittel</option>' in german
    assert '<option value="hard">困难</option>' in chinese
    # the seat panel a socket reading German or Chinese renders for itself (lobby/consumers.py)
    pushed = broadcast.table_variants_in("de", table.pk)
    assert all("Alan (Bot, leicht)" in html and "Grace (Bot, schwer)" in html for html in pushed.values())
    assert "Grace（机器人，困难）" in broadcast.table_variants_in("zh-hans", table.pk)["anon"]
    assert "Grace (bot, hard)" in broadcast.table_variants_in("en", table.pk)["anon"]


def bots_setup(kind: str) -> dict:
    """A game of ``kind``'s live setup: a person in seat 1, bots named as the lobby names them."""
    spec = GAMES[kind]
    seats = max(3, spec.min_seats)
    players = [{"seat": 1, "name": "hostess", "is_guest": False, "user_id": None, "bot": ""}]
    players += [
        {"seat": n, "name": services.bot_name_for(n), "is_guest": False, "user_id": None, "bot": spec.bot_levels[0]}
        for n in range(2, seats + 1)
    ]
    options = spec.options_form.defaults()
    return {"kind": kind, "options": options, "seed": 7, "players": players}


LOGGED = [kind for kind in sorted(GAMES) if kind != "tetriwar"]  # TetriWar keeps no log of moves


@pytest.mark.parametrize("kind", sorted(GAMES))
def test_boards_and_results_name_bots_in_the_readers_language(kind):
    spec = GAMES[kind]
    live = spec.live(bots_setup(kind))
    live.begin(0.0)
    level = {"greedy": "gierig", "easy": "leicht"}[spec.bot_levels[0]]
    with translation.override("de"):
        board = live.render_full(1.0, 0.0)
    assert f"Alan (Bot, {level})" in board and f"Grace (Bot, {level})" in board and "(bot," not in board
    with translation.override("zh-hans"):
        assert "Alan（机器人，" in live.render_full(1.0, 0.0)
    assert f"Alan (bot, {spec.bot_levels[0]})" in live.render_full(1.0, 0.0)


@pytest.mark.parametrize("kind", LOGGED)
def test_a_logs_bot_names_are_worded_for_each_language_read_at_the_table(kind):
    """The host renders a change in the site's language, then again in each other
    language read at the table (games/host.py): a log line's names follow."""
    spec = GAMES[kind]
    live = spec.live(bots_setup(kind))
    live.begin(0.0)
    now, english, german = 0.0, [], []
    for _ in range(400):
        now += 0.5
        events = live.advance(now)
        for seat in live.bot_seats:
            more, _delay = live.bot_act(seat, now)
            events += more
        english.append(live.render_events(events))
        with translation.override("de"):
            german.append(live.rerender_events(events))
        if live.finished or sum("(Bot, " in html for html in german) >= 3:
            break
    english_text, german_text = "".join(english), "".join(german)
    assert "Alan (bot, " in english_text or "Grace (bot, " in english_text
    assert "Alan (Bot, " in german_text or "Grace (Bot, " in german_text
    assert "(bot, " not in german_text
    # a page that comes later gets the whole log in its own language
    with translation.override("de"):
        later = live.render_full(now, 0.0)
    assert "(bot, " not in later


def test_a_replay_and_the_admin_show_bots_in_the_readers_language(host, admin_user):
    game = recorded_bots_game(host, "viertris", seed=3)
    url = reverse("games:replay", args=[game.pk])
    assert "Alan (Bot, gierig)" in page(reader("de"), url)
    assert "Alan（机器人，贪心）" in page(reader("zh-hans"), url)
    assert "Alan (bot, greedy)" in page(reader("en"), url)
    admin = reader("de", admin_user)
    assert "Alan (Bot, gierig)" in page(admin, reverse("admin:games_game_change", args=[game.pk]))


# --- default table names ------------------------------------------------------------------------------
def test_a_table_made_by_a_german_reader_has_its_default_name_in_each_readers_language(host, outsider):
    german_host = reader("de", host)
    response = german_host.post(reverse("lobby:practice", args=["viertris"]))
    assert response.status_code in (302, 303)
    table = Table.objects.get(host_user=host)
    assert (table.name, table.name_kind, table.named_for) == ("", "practice", "hostess")
    url = table.get_absolute_url()
    english, german = page(reader("en", outsider), url), page(german_host, url)
    assert "<title>hostess practice" in english and "<h1>hostess practice</h1>" in english
    assert "<title>Übung von hostess" in german and "<h1>Übung von hostess</h1>" in german
    assert "Übung" not in english
    lobby = reverse("lobby:index")
    assert "hostess practice" in page(reader("en"), lobby) and "Übung von hostess" not in page(reader("en"), lobby)
    assert "Übung von hostess" in page(reader("de"), lobby)
    assert "hostess 练习" in page(reader("zh-hans"), lobby)


def test_lobby_rows_pushed_to_sockets_word_a_default_name_for_each(host):
    with translation.override("de"):
        table = services.solo_create(player=ref(host), game="tetrix")
        services.table_create(player=ref(host), game="viertris", options=GAMES["viertris"].options_form.defaults(),
                              seats_total=2)
    for language, solo, own in (("en", "hostess solo", "hostess&#x27;s table"), ("de", "Solo von hostess", "Tisch von hostess"),
                                ("es", "hostess en solitario", "Mesa de hostess")):
        assert solo in broadcast.lobby_row_in(language, table.pk, False)
        other = Table.objects.exclude(pk=table.pk).get()
        assert own in broadcast.lobby_row_in(language, other.pk, True)


def test_a_typed_name_stays_as_typed_for_every_reader(host, make_table):
    with translation.override("de"):
        table = services.table_create(
            player=ref(host), game="viertris", options=GAMES["viertris"].options_form.defaults(), seats_total=2,
            name="  Freitagsblöcke ",
        )
    assert (table.name, table.name_kind) == ("Freitagsblöcke", "")
    for language in ("en", "de", "zh-hans"):
        with translation.override(language):
            assert table.title == "Freitagsblöcke"
        assert "<h1>Freitagsblöcke</h1>" in page(reader(language), table.get_absolute_url())


def test_the_admin_words_default_names_and_bots_in_the_admins_language(host, admin_user):
    table = services.practice_create(player=ref(host), game="tetriwar")
    german = page(reader("de", admin_user), reverse("admin:lobby_table_changelist"))
    assert "Übung von hostess" in german and "hostess practice" not in german
    change = page(reader("de", admin_user), reverse("admin:lobby_table_change", args=[table.pk]))
    assert "Übung von hostess" in change and "Alan (Bot, mittel)" in change
    english = page(reader("en", admin_user), reverse("admin:lobby_table_changelist"))
    assert "hostess practice" in english


# --- guests -----------------------------------------------------------------------------------------
def guest_reader(language: str, who: PlayerRef) -> Client:
    client = reader(language)
    session = client.session
    session[SESSION_GUEST_NAME] = who.name
    session[SESSION_GUEST_TOKEN] = who.guest_token
    session.save()
    return client


def test_a_guest_is_marked_so_in_each_readers_language_and_stored_by_name_alone(outsider):
    bea = guest("bea", "guest-token-bea")
    with translation.override("de"):
        table = services.table_create(
            player=bea, game="viertris", options=GAMES["viertris"].options_form.defaults(), seats_total=2
        )
    table.refresh_from_db()
    assert table.host_name == "bea"  # no language's mark in the database
    for language, marked, unmarked in (("en", "bea (guest)", "(Gast)"), ("de", "bea (Gast)", "(guest)")):
        with translation.override(language):
            assert table.host_display_name == marked
            assert table.seats.get(number=1).display_name == marked
            assert bea.display_name == marked
        # the host line and the seat panel, to a reader who is not at the table
        watching = page(reader(language, outsider), table.get_absolute_url())
        assert watching.count(marked) >= 2 and unmarked not in watching
        # the lobby's row
        lobby = page(reader(language, outsider), reverse("lobby:index"))
        assert marked in lobby and unmarked not in lobby
        # the guest's own page: the header says whom they play as
        own = page(guest_reader(language, bea), table.get_absolute_url())
        assert unmarked not in own
    assert "Du spielst als bea (Gast)" in page(guest_reader("de", bea), table.get_absolute_url())


def test_a_guest_who_takes_over_as_host_is_stored_by_name_alone(host, make_table):
    table = make_table(ref(host))
    services.seat_take(table_id=table.pk, player=guest("bea", "guest-token-bea"), number=2)
    services.seat_leave(table_id=table.pk, player=ref(host))
    table.refresh_from_db()
    assert table.host_name == "bea"
    with translation.override("de"):
        assert table.host_display_name == "bea (Gast)"


def test_the_admin_marks_a_guest_host_in_the_admins_language(admin_user):
    services.table_create(
        player=guest("bea", "guest-token-bea"), game="viertris",
        options=GAMES["viertris"].options_form.defaults(), seats_total=2,
    )
    german = page(reader("de", admin_user), reverse("admin:lobby_table_changelist"))
    assert "bea (Gast)" in german and "Gastgeber" in german and "(guest)" not in german
