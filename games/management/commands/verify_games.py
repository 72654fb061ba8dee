"""``manage.py verify_games``: rebuild finished games from their logs and check that
each ends as it was recorded (games/verify.py), storing every verdict on its game.

    manage.py verify_games                      # every finished game
    manage.py verify_games --kind viertris --unchecked
    manage.py verify_games --game 12 --game 40 --quiet

One line per mismatch, then a summary. It exits with status 1 when any game does not
replay to its record (a ``CommandError``, as Django recommends for a command that
fails), so a scheduled run can raise the alarm; games recorded before logs were
packed have nothing to replay and are counted apart, not as mismatches.
"""

from __future__ import annotations

from collections import Counter

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.models import Game
from games.registry import GAMES
from games.verify import record_check, verdict

CHUNK = 200  # games read per query: thousands of games never sit in memory at once


class Command(BaseCommand):
    help = "Replay finished games from their logs and check each ends as recorded; exit 1 on a mismatch."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--kind", choices=sorted(GAMES), help="Only games of this kind.")
        parser.add_argument(
            "--game",
            type=int,
            action="append",
            dest="game_ids",
            metavar="ID",
            help="Only this game (repeatable).",
        )
        parser.add_argument("--unchecked", action="store_true", help="Only games never checked before.")
        parser.add_argument("--quiet", action="store_true", help="Print the mismatches only, no summary.")

    def handle(
        self, *args, kind: str | None, game_ids: list[int] | None, unchecked: bool, quiet: bool, **options
    ):
        games = Game.objects.filter(status=Game.Status.FINISHED)
        if kind:
            games = games.filter(kind=kind)
        if game_ids:
            games = games.filter(pk__in=game_ids)
        if unchecked:
            games = games.filter(replay_check=Game.ReplayCheck.UNCHECKED)
        games = games.select_related("log").prefetch_related("participations").order_by("pk")
        counts: Counter[str] = Counter()
        for game in games.iterator(chunk_size=CHUNK):
            problems = record_check(game)
            result = verdict(problems)
            counts[result] += 1
            if result == Game.ReplayCheck.MISMATCH:
                self.stdout.write(self.style.ERROR(f"game {game.pk} ({game.kind}): {'; '.join(problems)}"))
        mismatches = counts[Game.ReplayCheck.MISMATCH]
        if not quiet:
            self.stdout.write(
                f"checked {counts.total()} games: {counts[Game.ReplayCheck.OK]} replay as recorded, "
                f"{mismatches} mismatches, {counts[Game.ReplayCheck.NO_RECORD]} without a log"
            )
        if mismatches:
            raise CommandError(f"{mismatches} game(s) do not replay to their recorded result.", returncode=1)
