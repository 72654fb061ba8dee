"""What the table host needs from a game to run it live.

The host is generic: it knows about clocks, connections, versions and saving, and
asks the game's ``LiveGame`` for everything else: how to turn a browser frame into
an engine intent, and which HTML fragments show what changed.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass
from typing import Any, ClassVar, Protocol

from django.template.loader import get_template, render_to_string
from django.utils.html import escape
from django.utils.translation import gettext, gettext_lazy, gettext_noop

from games.core.log import Rows
from games.core.outcome import Outcome, Termination
from games.core.protocol import IllegalIntent
from games.core.rules import Rules, UnknownRules
from games.registry import GAMES
from games.wire import Frame
from games.words import GUEST_NAME, Sentence, bot_name, guest_mark, termination


@dataclass(frozen=True)
class FinishedGame:
    """What the services record of a finished game: its outcome, each seat's numbers
    (score, lines, eliminations), the input log, and the seconds it lasted."""

    outcome: Outcome
    players: dict[int, dict[str, int]]
    log: Rows | list
    end: float
    # The replay's record: the engine's own clock at the start and at the end, exactly
    # (``end`` above is seconds since the start, rounded, for people).
    clock: tuple[float, float] = (0.0, 0.0)


class LiveGame(Protocol):
    FRAMES: tuple[type[Frame], ...]
    TICKED: bool
    seats: list[int]
    bot_seats: list[int]
    finished: bool

    def begin(self, now: float) -> None: ...
    def apply(self, seat: int, intent: str, now: float, at: int | None = None) -> list[Any]: ...
    def acknowledge(self, seat: int, seq: int, claim: int | None, ahead: bool = True) -> None: ...
    def own_news(self, events: list[Any], now: float) -> dict[int, str]: ...
    def own_news_due(self) -> bool: ...
    def decisive(self, events: list[Any]) -> bool: ...
    def advance(self, now: float) -> list[Any]: ...
    def forfeit(self, seat: int, now: float) -> list[Any]: ...
    def disconnected(self, seat: int, now: float) -> list[Any]: ...
    def bot_act(self, seat: int, now: float) -> tuple[list[Any], float]: ...
    def bots_looked(self, seconds: float, now: float) -> None: ...
    def has_left(self, seat: int) -> bool: ...
    def name(self, seat: int) -> str: ...
    def next_deadline(self) -> float | None: ...
    def finished_game(self) -> FinishedGame: ...
    def render_full(self, now: float, start_at: float) -> str: ...
    def render_events(self, events: list[Any]) -> str: ...
    def rerender_events(self, events: list[Any]) -> str: ...
    def keep_events(self, events: list[Any]) -> None: ...
    def render_results(self, game: Any) -> str: ...
    def private_fragments(self, events: list[Any]) -> dict[int, str]: ...
    def render_private(self, seat: int) -> str: ...
    @classmethod
    def render_aborted(cls, reason: str, *, game_id: int | None = None) -> str: ...


def live_game_class(kind: str) -> type[LiveGame]:
    return GAMES[kind].live


def live_frames(kind: str) -> tuple[type[Frame], ...]:
    """The frames a browser may send to a table of ``kind``, beside the table's own."""
    return live_game_class(kind).FRAMES


def preload() -> None:
    """Load every game's live code and compile its partials now, at start-up, not when
    the first table of the process starts (that player would wait for the imports, and
    each process would pay for them in the middle of play)."""
    for kind in GAMES:
        get_template(live_game_class(kind).TEMPLATE)


def live_game_for(setup: dict[str, Any]) -> LiveGame:
    return live_game_class(setup["kind"])(setup)


class LiveGameBase:
    """What every game's live wrapper shares: the setup, the engine's life cycle,
    bots seeded from the game, the outcome the services record, and the results.

    A game sets ``Game``, ``Options``, ``Intent``, ``TEMPLATE`` (its partials, with
    ``results`` and ``clock``) and ``make_bot``, and renders its own boards."""

    Game: Any
    Options: Any
    Intent: Any
    TEMPLATE: str
    FRAMES: tuple[type[Frame], ...] = ()  # the game's intents as typed frames (games/wire.py)
    # The results panel's columns of the game's own numbers: (heading, Standing field).
    # Headings are marked with gettext_lazy: rendered in the language active then.
    # The game's own numbers in its results, after the place and the name: its score
    # first, named "Score" in every game (games/words.py RESULT_WORDS: the §6 ranking
    # points, chips and rating that follow at a competitive table have words of their own).
    RESULT_COLUMNS: tuple[tuple[Any, str], ...] = ((gettext_lazy("Score"), "score"),)
    # The version of the game's rules new games are played under, recorded on each game
    # (Game.rules_version) so that its replay uses the same rules (``rules``).
    RULES_VERSION: ClassVar[int] = 1
    # Whether the host sends the game's changes once per tick (settings.LIVE_TICK_MS),
    # those of every step since the last frame together, rather than each step's at once.
    # A turn-based game's moves come seconds apart, one to a step: a tick would only
    # delay them (and its log of moves renders each move's lines once, as they come).
    TICKED: ClassVar[bool] = False
    # A replay plays the adapter from the log (games/replays.py): nobody is at the table,
    # no page plays ahead, no socket is told anything.
    replaying: bool = False

    def __init__(self, setup: dict[str, Any]) -> None:
        self.setup = setup
        self.options = self.Options.from_dict(setup["options"])
        self.seed = setup["seed"]
        self.players = {p["seat"]: p for p in setup["players"]}
        self.seats = sorted(self.players)
        self.game: Any = None
        self.start = 0.0
        # Computer players, each with its own random stream from the game's seed,
        # so a game with bots is as reproducible as one without.
        self.bots = {
            p["seat"]: self.make_bot(p["bot"], random.Random(f"{self.seed}:bot:{p['seat']}"))
            for p in setup["players"]
            if p.get("bot")
        }
        self.bot_seats = sorted(self.bots)
        # A game's log of moves (turn-based games show one): every line so far, and the
        # lines of the change rendered last, which each language renders again. Lines
        # are Sentences, worded when shown (``_keep_log``, ``_log_fragment``).
        self.log_lines: list[Sentence] = []
        self.logged: list[Sentence] = []

    def make_bot(self, level: str, rng: random.Random) -> Any:
        raise NotImplementedError

    @classmethod
    def rules(cls, version: int) -> Rules:
        """The engine that plays a game recorded under ``version`` of the rules, and its
        clock's unit; ``UnknownRules`` (a ValueError) for a version this code lacks. A
        game whose rules changed keeps its older engines and overrides this."""
        if version != cls.RULES_VERSION:
            raise UnknownRules(version)
        return Rules(version, cls.Game)

    def use_rules(self, rules: Rules) -> None:
        """A replay plays this adapter with the engine of ``rules`` (its clock's unit may
        not be today's). Nothing to do, for a game whose clock never changed."""

    def name(self, seat: int) -> str:
        """A seat's name as the table shows it, in the active language: a guest's
        marked, a bot's with the word bot and its level."""
        info = self.players[seat]
        if info.get("bot"):
            return str(bot_name(info["name"], info["bot"]))
        if info.get("is_guest"):
            return guest_mark(info["name"])
        return info["name"]

    # --- the game's partials (``TEMPLATE``) ------------------------------------------
    def _partial(self, name: str, context: dict[str, Any]) -> str:
        return render_to_string(f"{self.TEMPLATE}#{name}", context)

    def _region(self, name: str, value: dict[str, Any]) -> str:
        """A live update of one region: its partial, which reads ``value`` as ``it``."""
        return self._partial(name, {"it": value, "oob": True})

    def _keep_log(self, entries: list[Sentence]) -> None:
        """The lines a change adds to the log (``render_events``, once per change)."""
        self.logged = entries
        self.log_lines.extend(entries)

    def _log_fragment(self, list_id: str) -> str:
        """The lines of the change rendered last, added at the end of the page's list
        ``list_id``, in the active language (nothing when there are none)."""
        if not self.logged:
            return ""
        return f'<div hx-swap-oob="beforeend:#{list_id}">' + "".join(f"<li>{entry}</li>" for entry in self.logged) + "</div>"

    def who(self, seat: int) -> Any:
        """A seat's name in words kept to show again (a log line), escaped: a guest's
        "(guest)" and a bot's words are in the language the words are shown in."""
        info = self.players[seat]
        if info.get("bot"):
            return bot_name(escape(info["name"]), info["bot"])
        if info.get("is_guest"):
            return Sentence(GUEST_NAME, name=escape(info["name"]))
        return escape(self.name(seat))

    # --- the engine -----------------------------------------------------------------
    @property
    def finished(self) -> bool:
        return self.game is not None and self.game.finished

    def begin(self, now: float) -> None:
        self.start = now
        self.game = self.Game(self.options, self.seed, self.seats, now)

    def apply(self, seat: int, intent: str, now: float, at: int | None = None) -> list[Any]:
        """Apply a player's intent, in the engine's text form (``"bomb:3"``): the
        consumer decoded and typed the frame it came in (games/wire.py). ``at``: when a
        real-time page played the key (its game clock, ms); turn-based games act on
        arrival and ignore it."""
        assert self.game is not None
        return self.game.apply(seat, self.Intent.parse(intent), now)

    def acknowledge(self, seat: int, seq: int, claim: int | None, ahead: bool = True) -> None:
        """The seat's intent ``seq`` was applied just now; ``claim`` is what the page
        says its own board became (a hash), ``ahead`` whether the page played it ahead
        (the key came stamped with its time). Nothing, for a game the page does not
        play ahead."""

    def own_news(self, events: list[Any], now: float) -> dict[int, str]:
        """After a step, what each seat's own page needs to keep playing its board
        ahead (acknowledgements, a corrected board), by seat. None, for most games."""
        return {}

    def own_news_due(self) -> bool:
        """Whether a seat's page waits for news of its own board that no event or
        acknowledgement brings (a page that must be sent the whole board). Never, for
        most games."""
        return False

    def decisive(self, events: list[Any]) -> bool:
        """Whether these events decide something that goes out at once rather than with
        the tick's frame (a board topped out, a player gone). Everything, for a game
        that is not ticked."""
        return True

    def advance(self, now: float) -> list[Any]:
        return self.game.advance(now) if self.game else []

    def forfeit(self, seat: int, now: float) -> list[Any]:
        if self.game is None:
            raise IllegalIntent("NOT_STARTED", gettext_noop("The game has not started yet."))
        return self.game.forfeit(seat, now)

    def disconnected(self, seat: int, now: float) -> list[Any]:
        """The seat's last socket closed: undo what only its page could end (a key held
        down never sends its key-up). Nothing, for a game without held keys."""
        return []

    def engine_time(self, now: float) -> float:
        """The engine's clock at the host's ``now`` (seconds): the same, for most games."""
        return now

    def host_time(self, t: float) -> float:
        """The host's time (seconds) at the engine's ``t``: the same, for most games."""
        return t

    def bot_act(self, seat: int, now: float) -> tuple[list[Any], float]:
        """Let a bot press its next key, through the same engine call as a person's; the
        delay to its next call is in the host's seconds."""
        game = self.game
        if game is None or game.finished or self.has_left(seat):
            return [], 1.0
        t = self.engine_time(now)
        events = self.advance(now)  # the bot looks at the board as it is now
        delay, intent = self.bots[seat].next_action(game, seat, t)
        if intent is not None:
            try:
                events.extend(game.apply(seat, intent, t))
            except IllegalIntent:
                pass  # a bot's mistake is never a player's problem
        return events, delay

    def bots_looked(self, seconds: float, now: float) -> None:
        """The bots have watched the board for ``seconds`` up to the host's ``now`` (a
        resumed game's countdown): a turn-based bot acts on it without a further pause."""
        t = self.engine_time(now)
        for bot in self.bots.values():
            pause = getattr(bot, "pause", None)  # the real-time bots have none
            if pause is not None:
                pause.looked(seconds, t)

    def has_left(self, seat: int) -> bool:
        raise NotImplementedError

    def next_deadline(self) -> float | None:
        return self.game.next_deadline() if self.game else None

    def player_stats(self, seat: int) -> dict[str, int]:
        """Score, lines and eliminations of a seat, as Participation stores them."""
        raise NotImplementedError

    def finished_game(self) -> FinishedGame:
        game = self.game
        assert game is not None and game.finished
        return FinishedGame(
            outcome=game.outcome(),
            players={seat: self.player_stats(seat) for seat in self.seats},
            log=Rows(game.log, self.start),
            end=round(game.now - self.start, 4),
            clock=(self.start, game.now),
        )

    # --- what changed, in every language read at the table ------------------------------
    def keep_events(self, events: list[Any]) -> None:
        """Remember what a change shows (a log line, the plays on show) without rendering
        it: what a game rebuilt after a restart, or a replay played on, needs of its
        events (games/replays.py ``play_entry``). A game that remembers by rendering
        renders."""
        self.render_events(events)

    def rerender_events(self, events: list[Any]) -> str:
        """What ``render_events`` just returned for these events, in the active language,
        remembering nothing more: the host asks for it once per language read at the
        table besides the site's. ``render_events`` renders a change once and remembers
        what it showed (a log line, the plays on show); an adapter that remembers
        anything keeps it language-free (``games.words.Sentence``) and overrides this.
        The same, for a game that remembers nothing."""
        return self.render_events(events)

    # --- a finished game's moves, for its replay --------------------------------------------
    def move_words(self, seat: int, intent: str, events: list[Any], logged: list[Sentence]) -> list[Sentence]:
        """What ``seat``'s move ``intent`` (its text in the input log) did, in words, for a
        replay's caption (games/replays.py): ``logged``, the lines it added to the log of
        moves, with words of the move where the log does not say it (a Third Option
        placement, a Block-Killer piece moved). The log's lines alone, for a game whose
        log says every move."""
        return list(logged)

    # --- what one seat alone may see ----------------------------------------------------
    def private_fragments(self, events: list[Any]) -> dict[int, str]:
        """Fragments for one seat's sockets alone, by seat (a card dealt to one player);
        the host sends them after the step's broadcast. None, for most games. Each is
        ``render_private(seat)``: the host renders that again for a socket of the seat
        that reads another language."""
        return {}

    def render_private(self, seat: int) -> str:
        """What only ``seat`` sees of the game as it stands: sent to that seat's socket
        after the full state it asked for (a resync). Nothing, for most games."""
        return ""

    # --- the end --------------------------------------------------------------------
    def results_context(self) -> dict[str, Any]:
        return {}

    def ending_words(self, outcome: Outcome) -> str:
        """How the game ended, in the results: the words of its termination, or a game's
        own, more exact ones where it knows them (Te-Trix: whose sheet had no room)."""
        return termination(outcome.termination)

    def render_results(self, game_row: Any, outcome: Outcome | None = None, *, oob: bool = True) -> str:
        """The results panel: of the game just played (``outcome`` None: the engine's),
        pushed over the live boards with the clock stopped; or (``oob`` False) on its own,
        from the outcome the game recorded, for a page that opens after the end
        (``games.replays.last_results``)."""
        by_seat = {p.seat: p for p in game_row.participations.all()} if game_row is not None else {}
        rows = []
        if outcome is None:
            outcome = self.game.outcome()
        for standing in outcome.standings:
            parts = [by_seat[seat] for seat in standing.seats if seat in by_seat]
            rows.append({
                **asdict(standing),
                "seat_list": " ".join(str(seat) for seat in standing.seats),
                "values": [getattr(standing, key) for _, key in self.RESULT_COLUMNS],
                "names": " + ".join(
                    gettext("%(name)s (left)") % {"name": self.name(seat)} if seat in standing.leavers
                    else self.name(seat)
                    for seat in standing.seats
                ),
                "points": sum(p.points for p in parts),
                "chips": sum(p.chips_delta for p in parts),
                # each rated player's new rating and its change (a pair: both partners')
                "ratings": [(p.rating_after, p.rating_after - p.rating_before) for p in parts
                            if p.rating_after is not None and p.rating_before is not None],
            })
        context = {
            "rows": rows, "game": game_row, "game_id": getattr(game_row, "pk", None),
            "termination": self.ending_words(outcome), "oob": oob,
            "columns": self.RESULT_COLUMNS, "rated": any(r["ratings"] for r in rows), **self.results_context(),
        }
        html = render_to_string(self.TEMPLATE + "#results", context)
        if not oob:
            return html
        return html + self._clock_over(time_up=outcome.termination == Termination.TIME)

    @classmethod
    def render_aborted(cls, reason: str, *, game_id: int | None = None, oob: bool = True) -> str:
        context = {"aborted": reason, "game_id": game_id, "oob": oob}
        html = render_to_string(cls.TEMPLATE + "#results", context)
        return html + cls._clock_over() if oob else html

    @classmethod
    def _clock_over(cls, *, time_up: bool = False) -> str:
        """The clock stopped: the time ran out (``time_up``), or the game ended otherwise."""
        return render_to_string(cls.TEMPLATE + "#clock", {"over": True, "time_up": time_up, "oob": True})
