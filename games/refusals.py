"""Refusals in the player's language.

Engines are pure Python (no Django) and refuse with ``IllegalIntent(code, message)``:
an English sentence, often with numbers in it ("Column 4 is full."). The site refuses
the same way (``TableError``, ``ClientError``, ``FrameError``). Here, on Django's side,
every code has a translatable sentence, and ``refusal_text`` picks what a person reads
at the one place refusals become HTML (games/wire.py ``error_fragment``):

- a fixed English message (no numbers in it) that is marked below: its translation;
- else the sentence of its code, once translated into the active language;
- else (English, a language whose catalog lacks it yet, or an unknown code) the
  refuser's own English message, which says most ("Seat 3 is taken.").

A live game that knows more than its engine (a player's name for a seat number) may
refuse with a ``games.words.Sentence`` for a message: it is worded as it stands, in the
active language.

So English output is the refusers' own messages, unchanged. The code sentences are
true of every refusal that carries the code, in any game: they speak to the player
who was refused, and leave out the numbers only the English message carries.
tests/unit/test_refusals.py checks that every code raised in games/ and lobby/ is here.
"""

from __future__ import annotations

from django.utils.translation import gettext, gettext_noop

from games.words import Sentence

# Every refusal code used anywhere, with a sentence true of each refusal of that code.
REFUSALS: dict[str, str] = {
    # --- any game's engine ---------------------------------------------------------
    "UNKNOWN_INTENT": gettext_noop("The game does not know that move."),
    "GAME_OVER": gettext_noop("The game is over."),
    "NOT_PLAYING": gettext_noop("You are not playing in this game."),
    "NOT_YOUR_TURN": gettext_noop("It is not your turn."),
    "NOT_STARTED": gettext_noop("The game has not started yet."),
    "BAD_ARGUMENT": gettext_noop("That move is not written correctly."),
    "BAD_TARGET": gettext_noop("There is no such player to aim at."),
    "INVALID_OPTIONS": gettext_noop("These table options are not allowed."),
    # --- TetriWar -------------------------------------------------------------------
    "BOMBS_NOT_MANUAL": gettext_noop("Bombs are not dropped by hand in this game."),
    "EMPTY_STORE": gettext_noop("There is no bomb in the store to drop."),
    "NO_OPPONENT": gettext_noop(
        "There is no opponent to drop a red bomb on; use key 1 to drop it on yourself."
    ),
    "TARGET_LEFT": gettext_noop("That player has left the game."),
    # --- Viertris -------------------------------------------------------------------
    "BAD_COLUMN": gettext_noop("There is no such column."),
    "COLUMN_FULL": gettext_noop("That column is full."),
    # --- Third Option ---------------------------------------------------------------
    "BAD_PLACEMENT": gettext_noop("That placement is not written correctly."),
    "ELIMINATED": gettext_noop("You are out of the game."),
    "ALREADY_OUT": gettext_noop("You are out of the game: your empty squares stand as your score."),
    "ALREADY_PLACED": gettext_noop("You have placed a card this round: wait for the next."),
    "WRONG_ROUND": gettext_noop("That placement was meant for another round."),
    "CARD_NOT_OFFERED": gettext_noop("You may not place that card this round."),
    "OUT_OF_GRID": gettext_noop("The shape must lie wholly inside the grid."),
    "OVERLAP": gettext_noop("The shape must lie on empty squares only."),
    # --- Block-Killer ---------------------------------------------------------------
    "BAD_CARD": gettext_noop("There is no such card."),
    "BAD_STACK": gettext_noop("That garbage cannot be stacked so."),
    "BAD_KEYS": gettext_noop("The piece moves only left, right, down and by turning."),
    "DRAW_FIRST": gettext_noop("Draw your cards first."),
    "NO_DRAW_CHOICE": gettext_noop("You do not hold enough garbage cards to draw two block cards."),
    "MUST_PLAY": gettext_noop("You hold too many block cards: you must play."),
    "ALREADY_DREW": gettext_noop("You have drawn this turn."),
    "NOT_PLAYING_YET": gettext_noop("Pass, or name a target to attack first."),
    "STACK_FIXED": gettext_noop("The garbage is set once a piece has entered."),
    "PIECE_FALLING": gettext_noop("Place the falling piece first."),
    "NOT_A_BLOCK": gettext_noop("That card is not a block card."),
    "NOT_IN_HAND": gettext_noop("That card is not in your hand."),
    "BLOCKED": gettext_noop("The piece cannot go there."),
    "UNREACHABLE": gettext_noop("The piece cannot go there: a step is blocked."),
    "ABOVE_FIELD": gettext_noop("The piece would lock above the field."),
    "NO_PIECE": gettext_noop("No piece is falling: choose a block card."),
    "NOTHING_TO_CANCEL": gettext_noop("Placed pieces stay placed."),
    "NO_PIECE_PLACED": gettext_noop("An attack places at least one block card."),
    "WRONG_PHASE": gettext_noop("That is not possible during a play."),
    "NOT_GARBAGE": gettext_noop("That card is not a garbage card."),
    "DUPLICATE_CARD": gettext_noop("That garbage card is in the stack already."),
    "BAD_MERGE": gettext_noop("Only two checkerboard cards, one of them flipped, merge."),
    # --- Te-Trix --------------------------------------------------------------------
    "BAD_ARRANGE": gettext_noop("That arrangement is not written correctly."),
    "BAD_WRITE": gettext_noop("That write is not written correctly."),
    "NOT_SOLO": gettext_noop("Only the solo game may be stopped; leave the table instead."),
    "ALREADY_ARRANGED": gettext_noop("The dice are arranged: write the shape."),
    "NOT_THE_ROLL": gettext_noop("Arrange the four symbols the dice show, each once, none changed."),
    "NO_ROOM": gettext_noop("That shape cannot be written anywhere on your sheet."),
    "ALREADY_WROTE": gettext_noop("You have written this round's shape."),
    "CANNOT_WRITE": gettext_noop("The shape fits nowhere on your sheet this round."),
    "NOTHING_WRITTEN": gettext_noop("At least one symbol must be written on the sheet."),
    "CELL_WRITTEN": gettext_noop("Symbols are written on empty cells only, never on written ones."),
    "BAR_FULL": gettext_noop("Too many symbols would hang over the edge for the boxes left on your bar."),
    # --- frames (games/wire.py, lobby/edge.py): BAD_<field> names a frame's field ------
    "BAD_FRAME": gettext_noop("That message could not be read."),
    "READ_ONLY": gettext_noop("This page only listens; use the buttons."),
    "BAD_SEQ": gettext_noop("That message could not be read."),
    "BAD_T": gettext_noop("That message could not be read."),  # a key's time (games/wire.py)
    "BAD_H": gettext_noop("That message could not be read."),  # a board's hash
    "BAD_TABLE": gettext_noop("That message names no table there is."),
    "BAD_BLOCKS": gettext_noop("That message could not be read."),
    "BAD_ROWS": gettext_noop("That garbage cannot be stacked so."),
    "BAD_SHAPE": gettext_noop("There is no such shape."),
    "BAD_SYMBOLS": gettext_noop("Arrange the four symbols the dice show, each once, none changed."),
    "BAD_TURNS": gettext_noop("A shape turns 0 to 3 times."),
    "BAD_ROW": gettext_noop("There is no such row."),
    "BAD_ROUND": gettext_noop("That placement was meant for another round."),
    "BAD_MIRRORED": gettext_noop("That message could not be read."),
    "FRAME_TOO_LARGE": gettext_noop("That message is too long."),
    "FLOOD": gettext_noop("Too many messages: this connection is closed. Reload the page to carry on."),
    "BUSY": gettext_noop("The server is busy; that key press was not taken. Try again."),
    # --- sockets (lobby/ws.py, lobby/consumers.py) ------------------------------------
    "BANNED": gettext_noop("This account is banned."),
    "NOT_FOUND": gettext_noop("There is nothing at this address."),
    "WRONG_TABLE": gettext_noop("That message names another table; this socket is for this one."),
    "SPECTATOR": gettext_noop("Spectators watch; take a seat before the next game to play."),
    "NO_GAME": gettext_noop("No game is running at this table."),
    "RESTARTING": gettext_noop("The server is restarting: your game will continue."),
    # --- tables (lobby/services.py, games/services.py) --------------------------------
    "NO_SUCH_TABLE": gettext_noop("There is no such table."),
    "NO_SUCH_ARENA": gettext_noop("There is no such arena."),
    "NO_SUCH_GAME": gettext_noop("There is no such game."),
    "NO_SUCH_SEAT": gettext_noop("There is no such seat at this table."),
    "WHO_ARE_YOU": gettext_noop("Log in, or choose a guest name, first."),
    "GUEST_AT_COMPETITIVE": gettext_noop(
        "Competitive tables are for signed-in players. Sign up to play for chips."
    ),
    "NOT_ENOUGH_CHIPS": gettext_noop("Not enough chips for this table's stake."),
    "TOO_MANY_TABLES": gettext_noop(
        "You host as many tables as you may: leave one, or finish its game, before opening another."
    ),
    "TOO_MANY_TABLES_HERE": gettext_noop(
        "Enough tables are open from your network. Join one of them, or wait until one closes."
    ),
    "BAD_SEATS": gettext_noop("This game is not for that many players."),
    "BAD_STAKE": gettext_noop("A stake cannot be negative."),
    "BAD_OPTIONS": gettext_noop("These table options are not allowed."),
    "TABLE_CLOSED": gettext_noop("This table is closed."),
    "GAME_RUNNING": gettext_noop("A game is running at this table; wait for it to end."),
    "ALREADY_SEATED": gettext_noop("You already have a seat at this table."),
    "SEAT_TAKEN": gettext_noop("That seat is taken."),
    "NOT_SEATED": gettext_noop("You have no seat at this table."),
    "NOT_HOST": gettext_noop("Only the table's host can do that."),
    "NOT_READY": gettext_noop("The table is not ready to start."),
    "NO_REMATCH": gettext_noop("There is no game to play again yet: mark yourself ready."),
    "BAD_BOT": gettext_noop("This game has no bot of that level."),
    "BOT_AT_COMPETITIVE": gettext_noop("Bots play only at friendly tables: their games are never scored."),
    "NOT_A_BOT": gettext_noop("That seat holds no bot."),
    "NO_PLAYER": gettext_noop("That seat holds no player."),
    "OWN_SEAT": gettext_noop("That is your own seat: stand up to leave it."),
    "PLAYER_PRESENT": gettext_noop("That player is at the table: give them a moment more to get ready."),
    "TABLE_FULL": gettext_noop("This table is full: every seat is taken."),
    "PLAYER_READY": gettext_noop("That player is at the table and ready to play: their seat stays."),
    "NO_BOTS": gettext_noop("This game has no bots to practise against."),
    "NO_SOLO": gettext_noop("This game has no solo variant."),
    # --- chat (lobby/chat.py, lobby/edge.py) ------------------------------------------
    "BAD_TEXT": gettext_noop("A chat message is text, and not that long."),
    "CHAT_LOG_IN": gettext_noop("Log in to write in the chat."),
    "CHAT_ACCOUNTS_ONLY": gettext_noop("Guests read the chat; writing in it needs an account."),
    "CHAT_CLOSED": gettext_noop("This table is closed: its chat too."),
    "CHAT_EMPTY": gettext_noop("Write something first."),
    "CHAT_TOO_LONG": gettext_noop("That message is too long for the chat."),
    "CHAT_FLOOD": gettext_noop("You are writing too fast: wait a few seconds."),
    "MUTED": gettext_noop("You are muted in the chat for now."),
    "CHAT_SELF": gettext_noop("That is your own message."),
    "NO_SUCH_MESSAGE": gettext_noop("That message is no longer there."),
    # --- quick play (lobby/quickplay.py) ----------------------------------------------
    "ALREADY_PLAYING": gettext_noop("You are playing a game: finish or leave it first."),
    "SEATED_ELSEWHERE": gettext_noop("You have a seat at a table waiting for players: stand up there first."),
}

# Fixed English messages (no numbers, no names) raised with a code whose other
# messages differ: translated as they are, not as their code's sentence.
MESSAGES: frozenset[str] = frozenset({
    gettext_noop("The game has not started yet."),
    gettext_noop("The game could not start; stakes were returned."),
    gettext_noop("You are out of the game and have placed your free square."),
    gettext_noop("You have no card of your own this round: pick one of the two revealed cards."),
    gettext_noop("Neither revealed card fits your grid: place your third option."),
    gettext_noop("Your free square is the one card you may place."),
    gettext_noop("The piece cannot enter: the field is full at the top."),
    gettext_noop("Place the falling piece, or put it back, first."),
    gettext_noop("The garbage would fill the field."),
    gettext_noop("There is no such table, or it is closed."),
    gettext_noop("This account has been banned."),
    gettext_noop("The game server is overloaded; that key press was lost."),
    gettext_noop("Log in, or choose a guest name, to take a seat."),
    gettext_noop("Log in, or choose a guest name, to open a table."),
    gettext_noop("A game is running; wait for it to end to sit down."),
    gettext_noop("A game is running: leaving now forfeits it."),
    gettext_noop("The game has already started."),
    gettext_noop("Bots join or leave between games."),
    gettext_noop("Only the table's host can start the game."),
    gettext_noop("Only the table's host can seat or remove bots."),
    gettext_noop("Take a seat first."),
    gettext_noop("Choose a seat by its number."),
    gettext_noop("Malformed frame: expected JSON such as {\"intent\": \"left\", \"seq\": 1}."),
    gettext_noop("A frame is one flat JSON object, such as {\"intent\": \"left\", \"seq\": 1}."),
    gettext_noop("Frames are JSON text, such as {\"intent\": \"left\", \"seq\": 1}."),
})


def refusal_text(message: str | Sentence, code: str) -> str:
    """What a person reads of a refusal, in the active language (see the module)."""
    if isinstance(message, Sentence):
        return str(message)
    if message in MESSAGES or message == REFUSALS.get(code):
        return gettext(message)
    sentence = REFUSALS.get(code)
    if sentence is None and code.startswith("BAD_"):
        sentence = REFUSALS["BAD_FRAME"]  # a frame field nobody has named here yet
    if sentence is None:
        return message
    translated = gettext(sentence)
    return translated if translated != sentence else message
