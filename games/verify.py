"""Replays are checked, not trusted: a finished game rebuilt from its record must end
as it was recorded: the same outcome (places, scores, how it ended), the same numbers
per seat, at the same moment.

    problems = check(game)        # [] when the game replays to what was recorded
    problems = record_check(game) # the same, and the verdict stored on the game

``manage.py verify_games`` runs it over stored games and records each verdict on the
game (``Game.replay_check``), where the admin shows a mismatch as an alarm.
"""

from __future__ import annotations

from django.utils import timezone

from games.core.outcome import Outcome
from games.models import Game
from games.replays import rebuilt, recorded

NO_RECORD = "no packed log to replay (a game recorded before replays)"


def check(game: Game) -> list[str]:
    """What differs between the game rebuilt from its log and its record; [] if nothing."""
    try:
        record = recorded(game)
    except ValueError as err:
        return [str(err)]
    if record is None:
        return [NO_RECORD]
    try:
        live = rebuilt(record)
    except Exception as err:  # a log that does not even replay is the loudest mismatch
        return [f"the log does not replay: {type(err).__name__}: {err}"]
    if not live.finished:
        return ["the rebuilt game has not ended"]
    problems = []
    finished = live.finished_game()
    summary = dict(game.log.summary or {})
    stored_end = summary.pop("end", None)
    # seconds from the engine's own clock, by the record's rules (an older version's
    # clock may count in another unit than the one today's adapter reads)
    start, end = finished.clock
    lasted = record.rules.seconds(end - start)
    if stored_end is not None and abs(stored_end - lasted) > 1e-3:
        problems.append(f"it ends at {lasted} s, not at the recorded {stored_end} s")
    try:
        stored = Outcome.from_dict(summary)
    except (KeyError, TypeError, ValueError):
        stored = None
    if stored != finished.outcome:
        problems.append(f"its outcome is {finished.outcome.to_dict()}, not the recorded {summary}")
    if game.termination != finished.outcome.termination.value:
        problems.append(f"it ends by {finished.outcome.termination.value}, not by the recorded {game.termination}")
    places = {seat: s.place for s in finished.outcome.standings for seat in s.seats}
    for p in game.participations.all():
        got = finished.players.get(p.seat)
        if got is None:
            problems.append(f"seat {p.seat} is not in the rebuilt game")
            continue
        was = {"score": p.score, "lines": p.lines, "eliminations": p.eliminations, "place": p.place}
        now = {**got, "place": places.get(p.seat)}
        for key, value in was.items():
            if now.get(key) != value:
                problems.append(f"seat {p.seat}'s {key} is {now.get(key)}, not the recorded {value}")
    return problems


def verdict(problems: list[str]) -> Game.ReplayCheck:
    """What a check's problems say of the game."""
    if not problems:
        return Game.ReplayCheck.OK
    if problems == [NO_RECORD]:
        return Game.ReplayCheck.NO_RECORD  # an older game: nothing to compare, not a mismatch
    return Game.ReplayCheck.MISMATCH


def record_check(game: Game) -> list[str]:
    """Check the game and store the verdict on it, in one UPDATE of its row (so a check
    running beside the services never overwrites their fields); returns the problems."""
    problems = check(game)
    fields = {
        "replay_check": verdict(problems),
        "replay_problem": "\n".join(problems),
        "replay_checked_at": timezone.now(),
    }
    Game.objects.filter(pk=game.pk).update(**fields)
    for name, value in fields.items():
        setattr(game, name, value)
    return problems


def record_check_of(game_id: int) -> list[str] | None:
    """``record_check`` of the game with this id, read afresh; None if there is none."""
    game = Game.objects.select_related("log").prefetch_related("participations").filter(pk=game_id).first()
    return None if game is None else record_check(game)
