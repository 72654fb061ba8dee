"""A replay shows a finished game at any moment (games/replays.py ``Replay``, the pages in
games/views.py): the state a seek builds from its snapshots is the state a full replay
reaches, for every kind of game, backward and forward; the pages refuse what they cannot
show, and hide what an admin hid."""

from __future__ import annotations

import json
import math
import random
import threading
import time

import pytest
from django.urls import reverse

from games import replays
from games.core.log import InputLog
from games.live import live_game_for
from games.models import Game, GameLog
from games.registry import GAMES
from games.replays import Replay, ReplayBusy, rebuilt, recorded, replay_of
from lobby import services
from tests.contract.test_game_contract import bots_game
from tests.contract.test_game_contract import setup_for as contract_setup
from tests.games.test_replays import recorded_bots_game
from tests.personas import ref

pytestmark = pytest.mark.django_db

KINDS = sorted(GAMES)


def full_replay_text(record, t: float) -> str:
    """The engine played from the start through every entry up to ``t`` seconds, then its
    clocks run to that moment: what a seek must equal."""
    live = live_game_for(record.setup)
    scale = live.TICKS_PER_SECOND  # the record's clock: seconds, or TetriWar's ms
    now = record.start + t if scale == 1 else round(record.start + t * scale)
    entries = [entry for entry in record.log if entry[0] <= now]
    return live.Game.replay(live.options, live.seed, live.seats, record.start, entries, now).to_text()


def moments_to_check(record, rng: random.Random) -> list[float]:
    scale = live_game_for(record.setup).TICKS_PER_SECOND
    duration = (record.end - record.start) / scale
    times = [(t - record.start) / scale for t, _, _ in record.log]
    picked = rng.sample(times, min(6, len(times)))  # exactly at entries: the entry is shown
    return sorted({0.0, duration, duration / 3, *(rng.uniform(0, duration) for _ in range(6)), *picked})


@pytest.fixture(params=KINDS)
def kind(request):
    return request.param


def test_a_seek_through_snapshots_equals_a_full_replay_to_that_moment(host, kind):
    record = recorded(recorded_bots_game(host, kind, seed=11))
    replay = Replay.of(record, every=7)  # many snapshots: most seeks start from one
    assert len(replay._snapshots) > 1
    for t in moments_to_check(record, random.Random(kind)):
        assert replay.at(t).game.to_text() == full_replay_text(record, t), f"{kind} at {t}"


def test_seeking_backward_and_forward_gives_the_same_states(host, kind):
    record = recorded(recorded_bots_game(host, kind, seed=12))
    replay = Replay.of(record, every=5)
    late, early = replay.duration * 0.8, replay.duration * 0.2
    first_late = replay.at(late).game.to_text()
    first_early = replay.at(early).game.to_text()
    assert replay.at(late).game.to_text() == first_late  # forward again: the snapshots were not changed
    assert replay.at(early).game.to_text() == first_early
    assert replay.render(late) == replay.render(late)
    assert first_late != first_early


def test_the_end_of_a_replay_is_the_game_rebuilt(host, kind):
    record = recorded(recorded_bots_game(host, kind, seed=13))
    replay = Replay.of(record)
    assert replay.at(replay.duration).game.to_text() == rebuilt(record).game.to_text()
    assert replay.at(replay.duration + 100).game.to_text() == rebuilt(record).game.to_text()  # past the end: the end
    assert 'id="game"' in replay.render(replay.duration)


def test_moments_mark_every_move_of_a_turn_based_game_and_what_happened_in_tetriwar(host, kind):
    record = recorded(recorded_bots_game(host, kind, seed=14))
    replay = Replay.of(record)
    times = [m.t for m in replay.moments]
    assert times == sorted(times) and all(0 <= t <= replay.duration + 0.001 for t in times)
    if kind == "tetriwar":
        final = rebuilt(record)
        lines = sum(final.player_stats(seat)["lines"] for seat in final.seats)
        assert {m.kind for m in replay.moments} <= {"clear", "bomb", "out", "left"}
        assert bool([m for m in replay.moments if m.kind == "clear"]) == (lines > 0)
    else:
        assert len(replay.moments) == len(record.log)
        assert all(m.label for m in replay.moments)
    if replay.moments:
        m = replay.moments[-1]
        assert replay.moment_before(m.t) == len(replay.moments) - 1
        assert 'id="game"' in replay.render_moment(len(replay.moments) - 1)


def test_a_moment_is_shown_with_its_entry_played(host):
    record = recorded(recorded_bots_game(host, "viertris", seed=15))
    replay = Replay.of(record, every=3)
    for i in (0, len(replay.moments) // 2, len(replay.moments) - 1):
        m = replay.moments[i]
        n = m.entry
        live = live_game_for(record.setup)
        expected = live.Game.replay(
            live.options, live.seed, live.seats, record.start, record.log[:n], record.log[n - 1][0]
        ).to_text()
        assert replay._state(n, record.log[n - 1][0]).game.to_text() == expected


# --- the pages ---------------------------------------------------------------------------------
def replay_url(game) -> str:
    return reverse("games:replay", args=[game.pk])


def at_url(game) -> str:
    return reverse("games:replay_at", args=[game.pk])


@pytest.fixture
def finished(host):
    return recorded_bots_game(host, "viertris", seed=21)


def test_a_visitor_watches_a_finished_game_without_logging_in(client, finished):
    page = client.get(replay_url(finished))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="game"' in html and 'id="replay-seek"' in html and "Watch" not in html
    assert "js/replay.js" in html and "js/viertris.js" not in html  # no live script: no socket
    frame = client.get(at_url(finished), {"t": "3.5"})
    assert frame.status_code == 200
    body = frame.json()
    assert body["t"] == 3.5 and 'id="game"' in body["html"] and body["moment"] >= -1


def test_the_page_opens_at_the_moment_of_its_link(client, finished):
    record = recorded(finished)
    replay = Replay.of(record)
    m = replay.moments[len(replay.moments) // 2]
    html = client.get(replay_url(finished), {"t": str(m.t)}).content.decode()
    assert f'data-t="{m.t:.3f}"' in html
    assert replay.render(m.t) in html
    assert client.get(replay_url(finished), {"t": "nonsense"}).status_code == 200  # a bad link starts at 0


@pytest.mark.parametrize(
    "query, words",
    [
        ({"t": "soon"}, "t is a number"),
        ({"t": "nan"}, "from 0"),
        ({"t": "inf"}, "from 0"),
        ({"t": "-1"}, "from 0"),
        ({"t": "1e9"}, "at most"),
        ({"t": "1" * 40}, "t is a number"),
        ({"i": "-1"}, "i is the number"),
        ({"i": "99999"}, "i is the number"),
        ({"i": "two"}, "i is the number"),
        ({"i": "1", "t": "2"}, "not both"),
    ],
)
def test_a_moment_that_is_not_one_is_refused_with_words(client, finished, query, words):
    answer = client.get(at_url(finished), query)
    assert answer.status_code == 400
    assert words in answer.json()["error"]


def test_a_time_past_the_end_shows_the_end_and_a_moment_its_time(client, finished):
    replay = Replay.of(recorded(finished))
    end = client.get(at_url(finished), {"t": "5000"}).json()
    assert end["t"] == pytest.approx(replay.duration) and end["moment"] == len(replay.moments) - 1
    first = client.get(at_url(finished), {"i": "0"}).json()
    assert first["t"] == replay.moments[0].t and first["moment"] == 0


def test_a_hidden_replay_is_not_there_for_a_visitor_or_a_player_but_is_for_staff(
    client, finished, host, admin_user
):
    Game.objects.filter(pk=finished.pk).update(replay_hidden=True)
    assert client.get(replay_url(finished)).status_code == 404
    assert client.get(at_url(finished), {"t": "1"}).status_code == 404
    client.force_login(host)  # one who played it
    assert client.get(replay_url(finished)).status_code == 404
    client.force_login(admin_user)
    assert client.get(replay_url(finished)).status_code == 200
    assert client.get(at_url(finished), {"t": "1"}).status_code == 200


def test_a_game_still_running_or_aborted_has_no_replay(client, host):
    table = services.practice_create(player=ref(host), game="viertris")
    services.table_start(table_id=table.pk, player=ref(host))
    game = Game.objects.get(table=table)
    assert client.get(replay_url(game)).status_code == 404
    assert client.get(at_url(game), {"t": "0"}).status_code == 404
    Game.objects.filter(pk=game.pk).update(status=Game.Status.ABORTED)
    assert client.get(replay_url(game)).status_code == 404
    assert client.get(reverse("games:replay", args=[987654])).status_code == 404


def test_a_game_without_a_packed_log_says_its_replay_is_not_available(client, finished):
    GameLog.objects.filter(game=finished).update(data=b"")
    page = client.get(replay_url(finished))
    assert page.status_code == 200
    assert "The replay is not available" in page.content.decode()
    assert client.get(at_url(finished), {"t": "0"}).status_code == 404


# --- the links ---------------------------------------------------------------------------------
def test_the_results_panel_and_the_history_link_to_the_replay(client, finished, host):
    live = rebuilt(recorded(finished))
    assert replay_url(finished) in live.render_results(finished)
    client.force_login(host)
    assert replay_url(finished) in client.get(reverse("profile")).content.decode()
    board = client.get(reverse("games:leaderboard", args=["viertris"])).content.decode()
    assert replay_url(finished) in board and "Latest Viertris games" in board
    Game.objects.filter(pk=finished.pk).update(replay_hidden=True)  # a hidden replay is not offered
    assert replay_url(finished) not in client.get(reverse("games:leaderboard", args=["viertris"])).content.decode()


def test_a_moment_list_and_seek_bar_marks_come_with_the_page(client, finished):
    html = client.get(replay_url(finished)).content.decode()
    data = html.split('id="replay-moments" type="application/json">')[1].split("</script>")[0]
    moments = json.loads(data)
    assert moments and all(isinstance(t, float | int) and isinstance(label, str) for t, label in moments)
    assert 'class="move" style="--at:' in html


def test_a_replays_captions_are_in_each_readers_language_whoever_opened_it_first(client, finished):
    english = client.get(replay_url(finished), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert ": column " in english and ": Spalte " not in english
    german = client.get(replay_url(finished), HTTP_ACCEPT_LANGUAGE="de").content.decode()  # the same Replay, cached
    assert ": Spalte " in german and ": column " not in german
    chinese = client.get(replay_url(finished), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "：第 " in chinese


def test_what_tetriwars_clocks_do_alone_is_marked_at_its_own_time():
    """A board topped out by gravity, between two key presses: its moment is the clock's
    step that did it, not the next key press (seed 2: the easy bots' game tops one out
    while nobody presses anything)."""
    spec = GAMES["tetriwar"]
    setup = contract_setup(spec, 2, 2)
    setup["options"]["minutes"] = 2
    live = bots_game(spec, 2, 2, setup)
    log, start, end = InputLog.unpack(live.game.log.pack(*live.finished_game().clock))
    replay = Replay(setup, log, start, end)
    by_clock = [m for m in replay.moments if m.clock is not None]
    assert [m.kind for m in by_clock] == ["out"]
    m = by_clock[0]
    assert m.t == math.ceil(m.clock - start) / 1000  # the engine's clock counts ms
    assert log[m.entry - 1][0] < m.clock < log[m.entry][0]  # between two entries, and not at either
    states = [replay._state(m.entry, now).game.to_text() for now in (m.clock - 1, m.clock)]
    assert states[0] != states[1]  # the step at m.clock made the change
    assert replay.moments == sorted(replay.moments, key=lambda moment: moment.t)
    assert "id=\"game\"" in replay.render_moment(replay.moments.index(m))


def test_past_one_open_waiting_a_replay_is_asked_for_again_later(make_user, monkeypatch):
    """Opening a replay plays the whole game on a request thread, one open at a time. A
    flood of different replays would hold every request thread of the process (every
    page of the site waits for one): past one open under way and one waiting, the next
    is refused at once (ReplayBusy), and an open replay is served as before."""
    records = [recorded(recorded_bots_game(make_user(f"viewer{seed}"), "viertris", seed)) for seed in (31, 32, 33)]
    opening, release = threading.Event(), threading.Event()
    real_of = Replay.of

    def slow_of(record, **kwargs):
        opening.set()
        release.wait(10)
        return real_of(record, **kwargs)

    monkeypatch.setattr(Replay, "of", slow_of)
    opened = {}
    first = threading.Thread(target=lambda: opened.setdefault(0, replay_of(records[0])))
    first.start()
    assert opening.wait(10)
    second = threading.Thread(target=lambda: opened.setdefault(1, replay_of(records[1])))
    second.start()
    deadline = time.monotonic() + 10
    while replays._opening < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    with pytest.raises(ReplayBusy):
        replay_of(records[2])
    release.set()
    first.join(10)
    second.join(10)
    assert set(opened) == {0, 1} and replays._opening == 0
    assert replay_of(records[0]) is opened[0]  # cached: served whatever else is opening


def test_a_busy_replay_page_says_so_and_asks_again(client, finished, monkeypatch):
    monkeypatch.setattr(replays, "_opening", replays.OPENS_WAITING + 1)
    monkeypatch.setattr(replays, "_cache", type(replays._cache)())
    page = client.get(replay_url(finished))
    assert page.status_code == 503 and page["Retry-After"] == "3"
    html = page.content.decode()
    assert "The replay is opening" in html and '<meta http-equiv="refresh" content="3">' in html
    frame = client.get(at_url(finished), {"t": "1"})
    assert frame.status_code == 503 and "ask again" in frame.json()["error"]
