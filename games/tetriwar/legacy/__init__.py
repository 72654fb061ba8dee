"""TetriWar's rules versions 1 and 2, frozen: the engine as it was when it kept time in
float seconds (``engine.Game``: version 2, ``engine.GameV1``: version 1).

A finished game is rebuilt from its input log (games/replays.py, ``manage.py
verify_games``), and a replay must see the rules the game was played under: the same
clocks, the same lock delay, the same floats. So when the rules change, the engine that
played the older games is kept here as a copy and never edited again (rules version 3,
in integer milliseconds, is ``games/tetriwar/engine.py``). It is never used for new
games: ``games.tetriwar.rulebook.game_class`` picks it for a record's version.

- ``engine.py`` and ``player.py``: copies of ``games/tetriwar/engine.py`` and
  ``player.py`` as of commit 36be8e9 (unchanged until rules version 3). Version 1, the
  games played before 36be8e9, differs from version 2 only in the lock delay's resets:
  a flag of the Player (``old_lock_rule``).
- ``timing.py``: the seconds-based numbers of ``constants.py`` that version 3 counts in
  milliseconds. Everything else (pieces, kicks, field, bombs and their weights, events,
  intents, options, handling's text form) is imported from ``games.tetriwar``, shared by
  every version: a change to it is a new rules version, and the replays of the recorded
  version 2 games (tests/unit/tetriwar/test_tetriwar_legacy.py) fail if one slips in.
"""
