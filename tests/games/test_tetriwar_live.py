"""TetriWar's live adapter (games/tetriwar/live.py): each seat's handling from the
setup, the frames of held keys, and the end of a game as every board shows it."""

from __future__ import annotations

import pytest

from games import wire
from games.core.outcome import Termination
from games.registry import GAMES
from games.tetriwar.constants import MAX_LAG_MS
from games.tetriwar.handling import Handling
from games.tetriwar.intents import HOLDS
from games.tetriwar.live import TetriWarLive
from tests.contract.test_game_contract import setup_for
from tests.games.test_one_source import elements

SPEC = GAMES["tetriwar"]


def live_game(
    seats: int = 2, handling: dict[int, dict] | None = None, bots: tuple[int, ...] = ()
) -> TetriWarLive:
    setup = setup_for(SPEC, seed=5, seats=seats)
    for player in setup["players"]:
        if handling and player["seat"] in handling:
            player["handling"] = handling[player["seat"]]
        if player["seat"] in bots:
            player["bot"] = SPEC.bot_levels[0]
    live = SPEC.live(setup)
    live.begin(0.0)
    return live


# --- handling ----------------------------------------------------------------------------------------
def test_each_seats_handling_comes_from_its_player_entry_and_defaults_when_absent():
    live = live_game(handling={2: {"das": 120, "arr": 0, "soft_drop": 40}})
    assert live.game.handling(2) == Handling(das=120, arr=0, soft_drop=40)
    assert live.game.handling(1) == Handling()
    # part of the log, so the finished game's record replays with it
    assert list(live.game.log) == [(0.0, 2, "handling:120:0:40")]


def test_a_stored_handling_that_no_longer_passes_plays_with_the_defaults():
    setup = setup_for(SPEC, seed=5, seats=2)
    setup["players"][0]["handling"] = {"das": 5}
    setup["players"][1]["handling"] = {"das": 250}
    live = SPEC.live(setup)
    assert live.handling[1] == Handling() and live.handling[2] == Handling(das=250)


def test_a_game_with_handling_replays_from_its_record():
    live = live_game(handling={1: {"arr": 0}, 2: {"das": 250, "soft_drop": 60}})
    live.apply(1, "hold_left", 0.5)
    live.apply(2, "hold_down", 0.6)
    live.apply(2, "hold_right", 0.7)
    live.advance(2.0)
    live.apply(1, "release_left", 2.0)
    live.forfeit(2, 3.0)
    assert live.finished
    game = live.game
    again = type(game).replay(live.options, live.seed, live.seats, game.start, list(game.log), game.now)
    assert again.to_text() == game.to_text() and again.outcome() == game.outcome()


# --- frames --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", HOLDS)
def test_held_keys_have_frames_of_their_name_alone(name):
    frame = wire.decode(f'{{"intent": "{name}", "seq": 4}}', TetriWarLive.FRAMES)
    assert frame.intent_text() == name and frame.seq == 4
    live = live_game()
    live.apply(1, frame.intent_text(), 0.1)
    assert live.game.log[-1] == (100, 1, name)  # the engine logs ms since the start


def test_the_single_step_frames_stay():
    for name in ("left", "right", "rotate", "soft_drop_on", "soft_drop_off", "hard_drop"):
        assert wire.decode(f'{{"intent": "{name}"}}', TetriWarLive.FRAMES).intent_text() == name


# --- the end ---------------------------------------------------------------------------------------------
def assert_over(html: str, seat: int, text: str = "Game over") -> None:
    found = elements(html)
    assert text in found[f"status-{seat}"]
    assert 'class="pc none"' in found[f"piece-{seat}"] and 'class="pc none"' in found[f"ghost-{seat}"]


def test_when_time_runs_out_every_board_shows_the_game_is_over():
    live = live_game(seats=3)
    live.forfeit(3, 5.0)
    events = live.advance(live.game.end)
    assert live.finished and live.game.outcome().termination is Termination.TIME
    update = live.render_events(events)
    for seat in (1, 2):
        assert_over(update, seat)
    page = live.render_full(live.game.end, 0.0)
    for seat in (1, 2):
        assert_over(page, seat)
        # one source: the update's regions are the page's
        for region in (f"status-{seat}", f"piece-{seat}", f"ghost-{seat}", f"control-{seat}"):
            assert elements(page)[region] == elements(update)[region].replace(' hx-swap-oob="true"', "")
    assert "Left the game" in elements(page)["status-3"]


def test_intents_after_the_end_are_ignored_not_refused():
    live = live_game()
    live.advance(live.game.end)
    assert live.apply(1, "hold_left", live.game.end + 1) == []
    assert live.forfeit(2, live.game.end + 1) == []
    assert live.game.outcome().termination is Termination.TIME


def test_a_player_leaving_a_game_of_two_ends_it_and_the_other_board_is_over():
    live = live_game()
    events = live.forfeit(1, 4.0)
    assert live.finished
    update = live.render_events(events)
    assert "Left the game" in elements(update)["status-1"]
    assert_over(update, 2)
    finished = live.finished_game()
    assert finished.outcome.termination is Termination.FORFEIT
    assert [(s.seats, s.forfeited) for s in finished.outcome.standings] == [((2,), False), ((1,), True)]


def test_a_practice_game_ends_when_the_person_leaves_the_bot():
    live = live_game(bots=(2,))
    live.bot_act(2, 1.0)
    live.forfeit(1, 2.0)
    assert live.finished and live.finished_game().outcome.winners == (2,)
    assert live.bot_act(2, 3.0) == ([], 1.0)  # the bot stops too


def test_a_dropped_connection_lets_go_of_the_keys_it_held():
    live = live_game()
    live.apply(1, "hold_right", 0.5)
    live.apply(1, "hold_down", 0.5)
    live.disconnected(1, 0.6)
    player = live.game.players[1]
    assert player.held == [] and not player.soft
    assert [text for _, seat, text in live.game.log if seat == 1][-2:] == ["release_right", "release_down"]
    assert live.disconnected(1, 0.7) == [] and len(live.game.log) == 4  # nothing held: nothing logged
    assert live.disconnected(3, 0.7) == []  # a seat that is not playing: nothing to do
    live.advance(live.game.end)
    assert live.disconnected(2, live.game.end) == []  # nor once the game is over


def test_only_the_boards_that_wait_for_late_keys_are_held_back():
    """A board waits behind the game's clock while its page's stamped keys may still
    come (games/tetriwar/lag.py); one whose page sends its keys unstamped does not, and
    is not named at all (the engine then runs every clock without a lag per board)."""
    live = live_game(seats=3)
    assert live.behind() == {1: MAX_LAG_MS, 2: MAX_LAG_MS, 3: MAX_LAG_MS}  # no key yet
    live.apply(1, "left", 1.0)  # unstamped: acts on arrival
    live.apply(2, "left", 1.0, at=900)  # stamped 100 ms late
    behind = live.behind()
    assert 1 not in behind and 100 <= behind[2] <= MAX_LAG_MS and behind[3] == MAX_LAG_MS
    live.apply(2, "right", 1.1)
    live.apply(3, "right", 1.1)
    assert live.behind() == {2: behind[2]}  # seat 2 keeps what its stamped keys showed
    # the same deadline and the same clocks as with the zeros named
    assert live.game.next_deadline(live.behind()) == live.game.next_deadline({1: 0, 2: behind[2], 3: 0})
