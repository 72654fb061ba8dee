"""A player who leaves a running game (issue 30): their page watches the rest of it,
and after it their seat is freed, so the others' rematch does not wait for them (issue
49: also when they stay on the page); between games a host frees the seat of a player
who is away at once, and of one at the table who is not ready after a grace."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from games import services as game_services
from games.models import Game
from lobby import selectors, services
from lobby.models import Seat, Table, Watcher
from lobby.services import TableError
from tests.games.test_money import outcome
from tests.personas import ref

pytestmark = pytest.mark.django_db


def watch(table, user, channel: str) -> None:
    """``user`` has the table's page open (a socket)."""
    services.watcher_add(table_id=table.pk, channel_name=channel, player=ref(user))


@pytest.fixture
def three_at_play(host, opponent, third, make_table):
    table = make_table(ref(host), seats=3)
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    services.seat_take(table_id=table.pk, player=ref(third), number=3)
    for player in (host, opponent, third):
        services.seat_ready(table_id=table.pk, player=ref(player), ready=True)
    services.table_start(table_id=table.pk, player=ref(host))
    return table


def finish(table) -> None:
    game = Game.objects.get(table=table, status=Game.Status.RUNNING)
    game_services.game_finish(game_id=game.pk, finished=outcome({1: 1, 2: 2, 3: 3}))


def test_a_leaver_s_page_watches_the_rest_of_the_game(three_at_play, third):
    table = three_at_play
    services.seats_mark_left(table_id=table.pk, seats=[3])
    table = selectors.table_for_page(table.pk)
    panels = selectors.table_panels(table, selectors.table_version(table.pk), ref(third))
    assert panels.my_seat == 0  # plays no more: no keys, no game tools
    context = selectors.table_page_context(table, ref(third))
    assert context["i_left"]
    status = selectors.table_panels(table, selectors.table_version(table.pk), ref(third)).html
    assert "forfeit-button" not in status and "left-note" in status
    # The others see who left, in words.
    assert "Left the game" in selectors.table_panels(table, selectors.table_version(table.pk), None).html


def test_after_the_game_a_leaver_who_is_gone_frees_the_seat_and_the_rematch_starts(
    three_at_play, host, opponent, third
):
    table = three_at_play
    watch(table, host, "host-page")
    watch(table, opponent, "opponent-page")
    services.seats_mark_left(table_id=table.pk, seats=[3])  # third closed the page: no watcher
    finish(table)
    assert services.seats_free_after_game(table_id=table.pk) == [3]
    assert not Seat.objects.filter(table=table, number=3).exists()
    services.table_rematch(table_id=table.pk, player=ref(host))
    services.table_rematch(table_id=table.pk, player=ref(opponent))
    table.refresh_from_db()
    assert table.status == Table.Status.RUNNING  # nobody waits for the player who left
    assert sorted(Game.objects.filter(table=table).order_by("-pk").first().participations.values_list("seat", flat=True)) == [1, 2]


def test_a_leaver_still_at_the_table_gives_the_seat_up_and_may_sit_down_again(
    three_at_play, host, opponent, third
):
    table = three_at_play
    for player, channel in ((host, "h"), (opponent, "o"), (third, "t")):
        watch(table, player, channel)
    services.seats_mark_left(table_id=table.pk, seats=[3])  # Leave, the page kept open
    finish(table)
    assert services.seats_free_after_game(table_id=table.pk) == [3]
    assert not Seat.objects.filter(table=table, number=3).exists()
    html = selectors.table_panels(
        selectors.table_for_page(table.pk), selectors.table_version(table.pk), ref(third)
    ).html
    assert "Sit here" in html  # their page offers the seat again
    for player in (host, opponent):
        services.table_rematch(table_id=table.pk, player=ref(player))
    table.refresh_from_db()
    assert table.status == Table.Status.RUNNING  # nobody waited for the leaver
    assert sorted(
        Game.objects.filter(table=table).order_by("-pk").first().participations.values_list("seat", flat=True)
    ) == [1, 2]


def test_a_leaver_who_sits_down_again_plays_the_rematch(three_at_play, host, opponent, third):
    table = three_at_play
    for player, channel in ((host, "h"), (opponent, "o"), (third, "t")):
        watch(table, player, channel)
    services.seats_mark_left(table_id=table.pk, seats=[3])
    finish(table)
    services.seats_free_after_game(table_id=table.pk)
    services.seat_take(table_id=table.pk, player=ref(third), number=3)
    assert not Seat.objects.get(table=table, number=3).left_game
    services.seat_ready(table_id=table.pk, player=ref(third), ready=True)
    for player in (host, opponent):
        services.table_rematch(table_id=table.pk, player=ref(player))
    table.refresh_from_db()
    assert table.status == Table.Status.RUNNING
    assert Game.objects.filter(table=table).order_by("-pk").first().participations.count() == 3


def test_a_host_who_left_and_is_gone_hands_the_table_over(three_at_play, opponent, third):
    table = three_at_play
    watch(table, opponent, "o")
    watch(table, third, "t")
    services.seats_mark_left(table_id=table.pk, seats=[1])
    finish(table)
    assert services.seats_free_after_game(table_id=table.pk) == [1]
    table.refresh_from_db()
    assert table.host_user_id == opponent.pk


def test_a_seat_is_marked_left_only_while_its_game_runs(host, opponent, make_table):
    table = make_table(ref(host))
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    services.seats_mark_left(table_id=table.pk, seats=[2])
    assert not Seat.objects.get(table=table, number=2).left_game


def test_a_new_game_starts_with_nobody_marked_left(three_at_play, host, opponent, third):
    table = three_at_play
    for player, channel in ((host, "h"), (opponent, "o"), (third, "t")):
        watch(table, player, channel)
    services.seats_mark_left(table_id=table.pk, seats=[2])
    game = Game.objects.get(table=table, status=Game.Status.RUNNING)
    game_services.game_abort(game_id=game.pk, reason="test")  # no seat freeing after it
    for player in (host, opponent, third):
        services.table_rematch(table_id=table.pk, player=ref(player))
    assert not Seat.objects.filter(table=table, left_game=True).exists()


@pytest.fixture
def waiting_with_an_absent_player(host, opponent, make_table):
    table = make_table(ref(host))
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    watch(table, host, "host-page")
    return table


def test_the_host_frees_the_seat_of_a_player_who_is_away(waiting_with_an_absent_player, host):
    table = waiting_with_an_absent_player
    views = selectors.seat_views(selectors.table_for_page(table.pk), ref(host))
    assert [v.away for v in views] == [False, True]
    html = selectors.table_panels(selectors.table_for_page(table.pk), selectors.table_version(table.pk), ref(host)).html
    assert "Free seat" in html and "away-mark" in html
    services.seat_free(table_id=table.pk, player=ref(host), number=2)
    assert not Seat.objects.filter(table=table, number=2).exists()


@pytest.mark.parametrize(
    "who, seat, code",
    [("opponent", 2, "NOT_HOST"), ("host", 1, "OWN_SEAT"), ("host", 2, "PLAYER_PRESENT"), ("host", 3, "NO_PLAYER")],
)
def test_a_seat_is_freed_only_by_the_host_and_not_of_a_player_at_the_table_in_their_grace(
    host, opponent, make_table, who, seat, code
):
    table = make_table(ref(host), seats=3)
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    watch(table, host, "h")
    watch(table, opponent, "o")
    with pytest.raises(TableError) as refused:
        services.seat_free(table_id=table.pk, player=ref({"host": host, "opponent": opponent}[who]), number=seat)
    assert refused.value.code == code
    assert Seat.objects.filter(table=table).count() == 2


def sat_down_ago(table, number: int, seconds: float) -> None:
    Seat.objects.filter(table=table, number=number).update(
        joined_at=timezone.now() - dt.timedelta(seconds=seconds)
    )
    selectors.lobby_changed(table.pk)  # a new version: the table read afresh


def test_the_host_frees_the_seat_of_a_player_at_the_table_who_is_not_ready_after_the_grace(
    host, opponent, make_table
):
    table = make_table(ref(host), seats=2)
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    watch(table, host, "h")
    watch(table, opponent, "o")
    grace = selectors.FREE_SEAT_GRACE.total_seconds()
    sat_down_ago(table, 2, grace - 5)
    (view,) = [
        v for v in selectors.seat_views(selectors.table_for_page(table.pk), ref(host)) if v.number == 2
    ]
    assert 4000 < view.free_in_ms <= 5000  # offered in 5 s: the page shows the button then
    html = selectors.table_panels(
        selectors.table_for_page(table.pk), selectors.table_version(table.pk), ref(host)
    ).html
    assert 'data-shown-in-ms="' in html and "Free the seat of opponent, who is not ready" in html
    with pytest.raises(TableError) as refused:
        services.seat_free(table_id=table.pk, player=ref(host), number=2)
    assert refused.value.code == "PLAYER_PRESENT" and "5 s more" in refused.value.message
    sat_down_ago(table, 2, grace + 1)
    (view,) = [
        v for v in selectors.seat_views(selectors.table_for_page(table.pk), ref(host)) if v.number == 2
    ]
    assert view.free_in_ms == 0
    services.seat_free(table_id=table.pk, player=ref(host), number=2)
    assert not Seat.objects.filter(table=table, number=2).exists()


def test_the_grace_counts_from_the_end_of_the_last_game(three_at_play, host, opponent, third):
    table = three_at_play
    for player, channel in ((host, "h"), (opponent, "o"), (third, "t")):
        watch(table, player, channel)
    finish(table)
    sat_down_ago(table, 2, 3600)  # sat down an hour ago: the game just ended counts
    with pytest.raises(TableError) as refused:
        services.seat_free(table_id=table.pk, player=ref(host), number=2)
    assert refused.value.code == "PLAYER_PRESENT"
    Game.objects.filter(table=table).update(ended_at=timezone.now() - selectors.FREE_SEAT_GRACE)
    selectors.lobby_changed(table.pk)
    services.seat_free(table_id=table.pk, player=ref(host), number=2)  # a rematch waits for them no more
    assert not Seat.objects.filter(table=table, number=2).exists()


def test_a_ready_player_at_the_table_keeps_the_seat(host, opponent, make_table):
    table = make_table(ref(host), seats=2)
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    services.seat_ready(table_id=table.pk, player=ref(opponent), ready=True)
    watch(table, host, "h")
    watch(table, opponent, "o")
    sat_down_ago(table, 2, 3600)
    assert selectors.seat_views(selectors.table_for_page(table.pk), ref(host))[1].free_in_ms is None
    with pytest.raises(TableError) as refused:
        services.seat_free(table_id=table.pk, player=ref(host), number=2)
    assert refused.value.code == "PLAYER_READY"
    assert Seat.objects.filter(table=table, number=2).exists()


def test_no_seat_is_freed_while_a_game_runs(three_at_play, host):
    with pytest.raises(TableError) as refused:
        services.seat_free(table_id=three_at_play.pk, player=ref(host), number=3)
    assert refused.value.code == "GAME_RUNNING"


def test_a_seated_player_closing_their_last_page_marks_them_away_for_everyone(
    waiting_with_an_absent_player, opponent
):
    table = waiting_with_an_absent_player
    watch(table, opponent, "o1")
    watch(table, opponent, "o2")  # a second tab
    services.watcher_remove(channel_name="o1")
    assert not selectors.seat_views(selectors.table_for_page(table.pk), None)[1].away
    services.watcher_remove(channel_name="o2")
    assert selectors.seat_views(selectors.table_for_page(table.pk), None)[1].away
    assert not Watcher.objects.filter(user=opponent).exists()


def test_one_s_own_seat_is_not_away_on_one_s_own_page_before_its_socket_connects(host, opponent, make_table):
    table = make_table(ref(host))
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)  # nobody has a page open yet
    page = selectors.table_for_page(table.pk)
    assert [v.away for v in selectors.seat_views(page, ref(opponent))] == [True, False]
    assert [v.away for v in selectors.seat_views(page, ref(host))] == [False, True]
    html = selectors.table_panels(page, selectors.table_version(table.pk), ref(opponent)).html
    assert html.count("away-mark") == 1  # the host's seat only


def test_the_away_mark_is_a_drawn_icon_not_a_glyph_fonts_may_lack():
    from pathlib import Path

    from lobby.templatetags.icons import AWAY

    css = (Path(__file__).resolve().parents[2] / "static/css/site.css").read_text()
    assert "⏻" not in css and AWAY.startswith("<svg")
