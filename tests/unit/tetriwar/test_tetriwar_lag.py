"""When a timed key is applied (games/tetriwar/lag.py): at its stamp, within the
allowance, never before the board's time, never ahead of the server's clock."""

from games.tetriwar.constants import BOMB_DELAY_MS, MAX_LAG_MS
from games.tetriwar.lag import GAIN_MS, LEAD_MS, QUOTA_MS, LagQuota


def test_a_key_within_the_allowance_acts_at_its_stamp():
    lag = LagQuota()
    assert lag.when(9_900, server=10_000, board=9_000) == 9_900
    assert lag.clamped == 0


def test_an_unstamped_key_acts_at_the_servers_time():
    assert LagQuota().when(None, server=10_000, board=9_000) == 10_000
    assert LagQuota().when(None, server=10_000, board=10_200) == 10_200


def test_a_key_never_acts_before_its_boards_time():
    assert LagQuota().when(9_500, server=10_000, board=9_800) == 9_800


def test_a_late_key_beyond_the_allowance_is_clamped_not_trusted():
    lag = LagQuota()
    assert lag.when(5_000, server=10_000, board=0) == 10_000 - MAX_LAG_MS
    assert lag.clamped == 1


def test_a_key_from_the_future_acts_at_most_a_few_ms_ahead():
    assert LagQuota().when(60_000, server=10_000, board=0) == 10_000 + LEAD_MS


def test_the_allowance_stays_below_the_bombs_delay():
    # boards stay consistent only while no key acts a bomb's delay in the past (engine.py)
    assert MAX_LAG_MS < BOMB_DELAY_MS
    assert LagQuota(quota=10**9).allowance == MAX_LAG_MS


def test_one_piece_costs_its_largest_compensation_once():
    lag = LagQuota()
    for stamp in (9_900, 9_950, 9_800, 9_850):  # four keys of one piece, 100–200 ms late
        lag.when(stamp, server=10_000, board=0)
    assert lag.quota == QUOTA_MS - 200


def test_placing_a_piece_earns_quota_back_up_to_the_most():
    lag = LagQuota()
    lag.when(9_700, server=10_000, board=0)
    lag.piece_placed()
    assert lag.quota == QUOTA_MS - 300 + GAIN_MS
    lag.piece_placed()
    assert lag.quota == QUOTA_MS


def test_a_page_claiming_the_whole_allowance_every_piece_runs_its_quota_down():
    lag = LagQuota()
    server = 10_000
    for _ in range(200):
        lag.when(server - 10_000, server=server, board=0)  # claims to be 10 s late
        lag.piece_placed()
        server += 1_000
    # it earns GAIN_MS a piece and may not spend more: its keys are clamped to that
    assert lag.allowance <= GAIN_MS
    assert lag.when(server - 10_000, server=server, board=0) >= server - GAIN_MS


def test_an_honest_page_with_jitter_keeps_its_allowance():
    lag = LagQuota()
    server = 10_000
    for piece in range(500):
        for key in range(6):  # 100 ms away, 0–200 ms of jitter
            late = 100 + (piece * 37 + key * 53) % 200
            assert lag.when(server - late, server=server, board=0) == server - late
            server += 50
        lag.piece_placed()
    assert lag.clamped == 0


def test_the_board_waits_for_late_keys_as_long_as_they_have_been_late():
    lag = LagQuota()
    assert lag.behind() == MAX_LAG_MS  # no key yet: the whole allowance for the first
    lag.when(9_880, server=10_000, board=0)
    assert 120 <= lag.behind() <= MAX_LAG_MS
    lag.when(None, server=10_100, board=0)  # an unstamped key says nothing of the lag
    assert 120 <= lag.behind() <= MAX_LAG_MS


def test_a_board_whose_page_does_not_stamp_its_keys_does_not_wait():
    lag = LagQuota()
    lag.when(None, server=10_000, board=0)
    assert lag.behind() == 0


def test_the_board_never_waits_longer_than_the_allowance():
    lag = LagQuota()
    lag.when(0, server=10_000, board=0)  # 10 s late: clamped, and the wait capped
    assert lag.behind() == MAX_LAG_MS
