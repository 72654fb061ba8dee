"""The game contract: what every registered game provides, checked the same way.

A game is a package ``games/<game>/`` and one entry in ``games/registry.py``
(``GameSpec``). Its package provides:

- an engine (``<Live>.Game``), stdlib only: ``Game(options, seed, seats, now)``,
  ``apply(seat, intent, now)`` and ``advance(now)`` returning events, ``forfeit``,
  ``next_deadline``, ``finished``, ``outcome()`` (a ``games.core.outcome.Outcome``
  once finished), ``to_text()`` (equal texts, equal games), and ``replay(...)`` from
  its input log (``games.core.protocol.Replayable``);
- its options (``<Live>.Options``) with a JSON form, and a Django options form
  (``GameSpec.options_form``) whose defaults make a table;
- a live adapter (``GameSpec.live``, a ``games.live.LiveGameBase``): typed frames
  (``FRAMES``), its partials (``TEMPLATE``) and its computer players
  (``make_bot``, levels in ``GameSpec.bot_levels``);
- refusals of the one family (``games.core.errors.Refusal``), each with its code.

Every game registered passes every test here, with no test of its own needed.
"""

from __future__ import annotations

import copy
import functools
import random

import pytest

from games.core.errors import CODE, InvalidOptions, Refusal
from games.core.outcome import Outcome, Termination
from games.live import FinishedGame, LiveGameBase
from games.registry import GAMES

SPECS = sorted(GAMES.values(), key=lambda spec: spec.slug)
SHORT = {"minutes": 1}  # options that keep a bots' game short, where a game has them
CAP_SECONDS = 4 * 3600  # a bots' game that has not ended by then never will


def setup_for(spec, seed: int, seats: int, bot: str | None = None) -> dict:
    options = spec.options_form.defaults()
    options.update({key: value for key, value in SHORT.items() if key in options})
    return {
        "kind": spec.slug,
        "options": options,
        "seed": seed,
        "players": [
            {"seat": seat, "name": f"Player {seat}", "is_guest": False, "user_id": None, "bot": bot}
            for seat in range(1, seats + 1)
        ],
    }


def bots_game(spec, seed: int, seats: int = 2, setup: dict | None = None) -> LiveGameBase:
    """A game played to its end by the game's weakest bot in every seat, on a clock
    that jumps from one thing to do to the next (``setup``: a stored game's, its seats
    all played by bots). Each game is played once a run; every caller gets a copy of
    its own."""
    if setup is None:
        return copy.deepcopy(_played(spec.slug, seed, seats))
    return play_bots_game(spec, seed, seats, setup, again=True)


@functools.cache
def _played(slug: str, seed: int, seats: int) -> LiveGameBase:
    return play_bots_game(GAMES[slug], seed, seats)


# What the bots did in each game played from a stored game's setup, by kind, options,
# seed and seats: their search is the dearest part of such a game (a Block-Killer game
# took 20–30 s), and bots draw from the game's seed (games/live.py), so the same game
# again would make the same moves. The next such game (another table, other players'
# names) gets the moves through the same calls, without the search.
_moves: dict[tuple, dict[int, list]] = {}


class _Recording:
    def __init__(self, bot, moves: list) -> None:
        self.bot, self.moves = bot, moves

    def next_action(self, game, seat: int, t):
        move = self.bot.next_action(game, seat, t)
        self.moves.append(move)
        return move


class _Replaying:
    """The moves a bot made in the same game before; its own search after them, should
    the game go on (it does not)."""

    def __init__(self, bot, moves: list) -> None:
        self.bot, self.moves = bot, iter(moves)

    def next_action(self, game, seat: int, t):
        return next(self.moves, None) or self.bot.next_action(game, seat, t)


def play_bots_game(spec, seed: int, seats: int = 2, setup: dict | None = None, again: bool = False) -> LiveGameBase:
    """``bots_game``, played now (``again``: with the bots' moves of the same game played
    before in this run, if there was one)."""
    if setup is None:
        setup = setup_for(spec, seed, seats)
    setup = {**setup, "players": [{**p, "bot": spec.bot_levels[0]} for p in setup["players"]]}
    live = spec.live(setup)
    key = (spec.slug, setup["seed"], tuple(live.bots), repr(sorted(setup["options"].items())))
    recording = {seat: [] for seat in live.bots}
    if again and key in _moves:
        live.bots = {seat: _Replaying(bot, _moves[key][seat]) for seat, bot in live.bots.items()}
    elif again:
        live.bots = {seat: _Recording(bot, recording[seat]) for seat, bot in live.bots.items()}
    now = 0.0
    live.begin(now)
    due = {seat: now for seat in live.bot_seats}
    while not live.finished:
        seat = min(due, key=due.get)
        deadline = live.next_deadline()
        if deadline is not None and deadline < due[seat]:
            now = deadline
            live.advance(now)
            continue
        now = due[seat]
        assert now < CAP_SECONDS, f"{spec.slug}: the bots' game did not end"
        _, delay = live.bot_act(seat, now)
        due[seat] = now + max(delay, 0.001)
    if again and key not in _moves:
        _moves[key] = recording
    return live


@pytest.fixture(params=SPECS, ids=lambda spec: spec.slug)
def spec(request):
    return request.param


def test_the_registration_is_complete(spec):
    assert spec.min_seats >= 1 and spec.max_seats >= spec.min_seats
    assert issubclass(spec.live, LiveGameBase)
    assert spec.live.FRAMES, "a game declares the frames a browser may send"
    assert spec.bot_levels, "a game has a computer player for practice tables"
    assert spec.how_to_template and spec.live.TEMPLATE


def test_its_default_options_validate_and_bad_ones_are_refused_with_a_code(spec):
    defaults = spec.options_form.defaults()
    spec.options_form.validate(defaults)
    assert spec.live.Options.from_dict(defaults).to_dict() == defaults
    with pytest.raises(InvalidOptions) as caught:
        spec.live.Options.from_dict({**defaults, "no_such_option": 1})
    assert caught.value.code == "INVALID_OPTIONS" and caught.value.field == "no_such_option"
    form = spec.options_form(data={})
    assert form.is_valid() or form.errors  # the form answers an empty submission either way


def test_the_bot_finishes_a_game_with_an_outcome_for_every_seat(spec):
    live = bots_game(spec, seed=11)
    outcome = live.game.outcome()
    assert isinstance(outcome, Outcome)
    assert outcome.termination in Termination and outcome.termination is not Termination.ABORT
    seats = sorted(seat for standing in outcome.standings for seat in standing.seats)
    assert seats == live.seats
    assert outcome.standings[0].place == 1
    finished = live.finished_game()
    assert isinstance(finished, FinishedGame) and finished.outcome == outcome
    assert set(finished.players) == set(live.seats)


def test_a_seeded_game_replays_from_its_input_log_to_the_same_game(spec):
    live = bots_game(spec, seed=23)
    game = live.game
    again = type(game).replay(
        spec.live.Options.from_dict(live.setup["options"]), live.seed, live.seats, game.start, list(game.log), game.now
    )
    assert again.to_text() == game.to_text()
    assert again.outcome() == game.outcome()


def test_the_same_seed_and_input_make_the_same_game(spec):
    assert bots_game(spec, seed=5).game.to_text() == play_bots_game(spec, seed=5).game.to_text()


def test_a_bots_game_played_again_from_the_bots_moves_is_the_game_they_play():
    """The shortcut of ``bots_game`` with a stored game's setup: the bots' moves of a
    game played before in the run, in another setup of the same game (other names)."""
    spec = GAMES["viertris"]
    setup = setup_for(spec, 17, 2)
    renamed = {**setup, "players": [{**p, "name": f"Other {p['seat']}"} for p in setup["players"]]}
    first = bots_game(spec, 17, 2, setup)
    again = bots_game(spec, 17, 2, renamed)
    assert isinstance(again.bots[1], _Replaying)
    assert first.game.to_text() == again.game.to_text() == play_bots_game(spec, 17, 2, renamed).game.to_text()


GARBAGE = ["", "x", "drop", "drop:99", "drop:-1", "drop:x", "left:3", "bomb:9", "bomb:0", ":", "é", "forfeit"]


def test_every_refusal_has_a_code_and_changes_nothing(spec):
    live = spec.live(setup_for(spec, seed=3, seats=2))
    live.begin(0.0)
    live.advance(5.0)
    rng = random.Random(7)
    texts = GARBAGE + ["".join(rng.choice("abdeflgmoprt:-0123456789") for _ in range(rng.randint(1, 12)))
                       for _ in range(200)]
    refused = 0
    for text in texts:
        for seat in (1, 2, 3):  # seat 3 is not playing
            before = live.game.to_text()
            try:
                live.apply(seat, text, 5.0)
            except Refusal as err:
                refused += 1
                assert CODE.match(err.code), (text, err)
                assert err.message
                assert live.game.to_text() == before, f"{text!r} was refused but changed the game"
    assert refused  # garbage is refused, not taken


def test_its_results_panel_names_every_player_and_how_the_game_ended(spec):
    live = bots_game(spec, seed=11)
    html = live.render_results(None)
    assert 'id="results"' in html and 'hx-swap-oob="true"' in html
    ending = live.ending_words(live.game.outcome())  # its termination's words, or the game's own
    assert ending and ending in html
    for seat in live.seats:
        assert f"Player {seat}" in html
    aborted = spec.live.render_aborted("The server stopped.")
    assert "Game aborted" in aborted and "The server stopped." in aborted


def test_its_results_panel_shows_the_same_from_the_record_alone(spec):
    """A page opened after the game (games/replays.py, ``last_results``) renders the
    panel from the outcome the game recorded, with an adapter that never played: the
    same rows as the panel pushed at the end, as part of the page (no out-of-band swap,
    no clock)."""
    live = bots_game(spec, seed=11)
    pushed = live.render_results(None)
    recorded = Outcome.from_dict(live.finished_game().outcome.to_dict())
    shown = spec.live(live.setup).render_results(None, recorded, oob=False)

    def rows(html: str) -> str:
        return html[html.index("<tbody>"):html.index("</tbody>")]

    assert rows(shown) == rows(pushed)
    assert 'id="results"' in shown and "hx-swap-oob" not in shown and 'id="clock"' not in shown
    assert recorded.termination.words in shown
    aborted = spec.live.render_aborted("The server stopped.", oob=False)
    assert "The server stopped." in aborted and "hx-swap-oob" not in aborted and 'id="clock"' not in aborted
