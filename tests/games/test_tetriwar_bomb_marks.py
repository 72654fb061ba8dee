"""Received bombs are marked with who dropped them (RULES.md §1, issue 30 point 12):
the boards are labelled by seat, and the keys count from each receiver's own seat, so a
received bomb carries both its sender's board label and name, and the receiver's key
for the sender. The page, a resync and the live update say the same."""

from __future__ import annotations

from games.registry import GAMES
from games.tetriwar import constants as C
from tests.contract.test_game_contract import setup_for
from tests.games.test_one_source import elements

SPEC = GAMES["tetriwar"]
NAMES = {1: "Ann", 2: "Bea", 3: "Cleo", 4: "Dan"}


def four_players():
    setup = setup_for(SPEC, seed=9, seats=4)
    setup["options"]["bombs"] = "manual"
    for player in setup["players"]:
        player["name"] = NAMES[player["seat"]]
    live = SPEC.live(setup)
    live.begin(0.0)
    return live


def drop(live, bomb: str, *, by: int, on: int, now: float = 1.0) -> str:
    """Seat ``by`` drops ``bomb`` on seat ``on`` with its own key for ``on``; the live update."""
    live.game.setup(by, store=[bomb])
    key = live.game.players[by].numbers[on]
    return live.render_events(live.apply(by, f"bomb:{key}", now))


def test_a_bomb_from_seat_3_on_seat_2_is_marked_with_seat_3_and_seat_2s_key_for_them():
    live = four_players()
    update = drop(live, C.ADD_LINE, by=3, on=2)
    # Seat 3 aims with its own key 4 (3, 4, 1, 2); seat 2 answers seat 3 with key 2 (2, 3, 4, 1).
    assert live.game.players[3].numbers[2] == 4 and live.game.players[2].numbers[3] == 2
    chip = elements(update)["feed-2"]
    assert 'title="Add line (red, attack) from Cleo, player 3 (key 2 on this board):' in chip
    assert '<b class="from" aria-hidden="true">3</b><b class="key" aria-hidden="true">2</b>' in chip
    assert 'role="img" aria-label="Add line (red, attack) from Cleo, player 3 (key 2 on this board):' in chip
    assert "Bea" not in chip and "Dan" not in chip


def test_the_page_and_the_live_update_mark_a_received_bomb_alike():
    live = four_players()
    update = elements(drop(live, C.GRAVITY_BOMB, by=3, on=2))["feed-2"]
    page = elements(live.render_full(2.0, 0.0))["feed-2"]
    assert page == update.replace(' hx-swap-oob="true"', "")
    assert "from Cleo, player 3" in page


def test_each_receiver_numbers_the_same_sender_by_its_own_key():
    live = four_players()
    drop(live, C.ADD_LINE, by=3, on=1)
    drop(live, C.ADD_LINE, by=3, on=4)
    drop(live, C.REMOVE_LINE, by=3, on=3)  # a bomb on oneself: one's own key 1
    boards = elements(live.render_full(2.0, 0.0))
    assert '<b class="from" aria-hidden="true">3</b><b class="key" aria-hidden="true">3</b>' in boards["feed-1"]  # seat 1: 1, 2, 3, 4
    assert '<b class="from" aria-hidden="true">3</b><b class="key" aria-hidden="true">4</b>' in boards["feed-4"]  # seat 4: 4, 1, 2, 3
    assert '<b class="from" aria-hidden="true">3</b><b class="key" aria-hidden="true">1</b>' in boards["feed-3"]


def test_a_senders_name_is_escaped_in_the_mark():
    live = four_players()
    live.players[3]["name"] = '<b>"x"</b>'
    chip = elements(drop(live, C.DRILL, by=3, on=2))["feed-2"]
    assert "from &lt;b&gt;&quot;x&quot;&lt;/b&gt;, player 3" in chip
