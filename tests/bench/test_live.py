"""bench/live.py's lean client (``--client scripted``): its keys without a board or the
AI, whether the client made the figure, and a short real run. No timing thresholds:
what is measured is the bench's business, not the tests'."""

from __future__ import annotations

import random

import pytest

from bench.live import ENTER_CHANCE, Script, client_limited
from tests.bench.runs import ROOT, run_bench
from tests.needs import need


def need_node_client() -> str:
    """Node and bench/node's npm package (``--client node``); skips without them, except
    under CI=true."""
    import shutil

    from bench.live import node_client_missing

    missing = node_client_missing()
    need(missing is None, f"--client node cannot run: {missing}")
    return shutil.which("node")


def test_the_script_sends_nothing_until_its_game_runs_and_then_places_piece_after_piece():
    script = Script(2, random.Random(1))
    assert script.key() is None
    script.read('<!--v1--><div id="game" data-remaining-ms="900000"></div>')
    keys = [script.key()["intent"] for _ in range(200)]
    assert set(keys) <= {"left", "right", "rotate", "hard_drop"}  # the AI client's frames (← → tapped as it taps them)
    assert keys.count("hard_drop") >= 200 // 8  # at most 3 turns and 3 columns a piece
    script.read('<!--v2--><h2 id="results-title">Results</h2>')
    assert script.key() is None


def test_the_script_presses_enter_only_while_its_store_holds_a_bomb():
    script = Script(1, random.Random(3))
    script.read('<!--v1--><div data-remaining-ms="1"></div><div id="bombs-1" class="store" aria-label="Bombs"><span>')
    assert any(script.key() == {"intent": "bomb"} for _ in range(int(20 / ENTER_CHANCE)))
    script.read('<!--v2--><div id="bombs-1" class="store" aria-label="Bombs"></div>')
    assert all(script.key() != {"intent": "bomb"} for _ in range(200))


def test_the_client_makes_the_figure_when_its_lag_is_half_the_p99_or_it_fills_a_core():
    assert client_limited(1.0, 5.0, 1.0, 10.0) == "no"
    assert client_limited(3.0, 5.0, 1.0, 10.0).startswith("yes (client_loop_lag_p99_ms")
    assert client_limited(1.0, 5.0, 9.0, 10.0).startswith("yes (client_cpu_s")
    assert client_limited(float("nan"), float("nan"), 0.0, 0.0) == "no"


def test_a_short_run_of_the_scripted_client():
    run = run_bench("live.py", "--tables", "2", "--seconds", "3", "--client", "scripted", "--no-floor")
    out, lines = run.lines, run.figures
    assert lines["client"] == "scripted", run.stdout
    assert int(lines["intents_sent"]) > 0 and int(lines["intents_acknowledged"]) > 0, run.stdout
    for name in ("p50_ms", "p99_ms", "spectator_p99_ms", "client_cpu_s", "client_loop_lag_p99_ms"):
        assert float(lines[name]) >= 0, run.stdout
    assert lines["timeouts"] == "0" and lines["spectator_timeouts"] == "0", run.stdout
    assert lines["tables_running_at_window_start"] == "2", run.stdout
    assert out[-2].startswith(("client_limited: yes", "client_limited: no")), run.stdout
    assert out[-1] in ("disturbed: yes", "disturbed: no"), run.stdout


def test_a_short_run_of_the_node_client():
    need_node_client()
    run = run_bench("live.py", "--tables", "2", "--seconds", "3", "--client", "node", "--no-floor")
    out, lines = run.lines, run.figures
    assert lines["client"] == "node", run.stdout
    assert int(lines["intents_sent"]) > 0 and int(lines["intents_acknowledged"]) > 0, run.stdout
    for name in ("p50_ms", "p99_ms", "opponent_p99_ms", "spectator_p99_ms", "client_loop_lag_p99_ms",
                 "frames_per_socket_s", "bytes_per_table_minute", "server_cpu_s_per_table_minute"):
        assert float(lines[name]) >= 0, run.stdout
    assert float(lines["client_cpu_s"]) > 0 and int(lines["updates_seen_by_spectators"]) > 0, run.stdout
    assert lines["timeouts"] == "0" and lines["spectator_timeouts"] == "0", run.stdout
    assert lines["opponent_timeouts"] == "0" and lines["error_replies"] == "0", run.stdout
    assert "sockets_dropped" not in lines, run.stdout
    assert lines["sockets_connected"].startswith("10 "), run.stdout
    assert lines["tables_running_at_window_start"] == "2" and lines["games_started"] == "2", run.stdout
    assert out[-2].startswith(("client_limited: yes", "client_limited: no")), run.stdout
    assert out[-1] in ("disturbed: yes", "disturbed: no"), run.stdout


def test_the_node_client_draws_and_presses_what_the_scripted_client_does():
    """bench/node/lean_client.mjs seeds a Mersenne Twister as ``random.Random(x)`` does
    (``mt_key``): the same seed gives the same keys, Enter included, the same frames and
    the same gaps between them."""
    import json
    import subprocess

    from bench.live import key_frames, mt_key

    node = need_node_client()
    running = '<!--v1--><div id="game" data-remaining-ms="900000"></div>'
    armed = '<!--v2--><div id="bombs-3" class="store" aria-label="Bombs"><span class="bomb"></span></div>'
    empty = '<!--v3--><div id="bombs-3" class="store" aria-label="Bombs"></div>'
    steps = [("read", running), ("keys", 120), ("read", armed), ("keys", 120), ("read", empty), ("keys", 60)]
    seeds = [random.Random(5).random() for _ in range(2)]

    script, schedule = Script(3, random.Random(seeds[0])), random.Random(seeds[1])
    keys = []
    for kind, value in steps:
        if kind == "read":
            script.read(value)
        else:
            keys.extend(script.key()["intent"] for _ in range(value))
    python = {"keys": keys, "gaps": [schedule.expovariate(5.0) for _ in range(300)],
              "frames": [list(key_frames({"intent": key}, seq)) for seq, key in enumerate(keys, 1)]}

    program = """
    import { PyRandom, Script, keyFrames } from "./bench/node/lean_client.mjs";
    const [steps, scriptSeed, scheduleSeed, enterChance] = JSON.parse(process.argv[1]);
    const script = new Script(3, new PyRandom(scriptSeed), enterChance);
    const schedule = new PyRandom(scheduleSeed);
    const keys = [];
    for (const [kind, value] of steps) {
      if (kind === "read") script.read(value);
      else for (let i = 0; i < value; i++) keys.push(script.key());
    }
    const gaps = Array.from({ length: 300 }, () => schedule.expovariate(5.0));
    console.log(JSON.stringify({ keys, gaps, frames: keys.map((key, i) => keyFrames(key, i + 1)) }));
    """
    run = subprocess.run(
        [node, "--input-type=module", "-e", program,
         json.dumps([steps, mt_key(seeds[0]), mt_key(seeds[1]), ENTER_CHANCE])],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
    )
    assert run.returncode == 0, run.stderr
    node_drew = json.loads(run.stdout)
    assert "bomb" in python["keys"] and "rotate" in python["keys"]
    assert node_drew["keys"] == python["keys"] and node_drew["frames"] == python["frames"]
    # V8's logarithm and the C library's may differ in the last bit
    assert node_drew["gaps"] == pytest.approx(python["gaps"], rel=1e-12)


def test_the_floor_gets_the_lean_clients_frames():
    """bench/floor.py sends what the lean client sends: ← and → as a numbered key-down
    and its unnumbered key-up (the floor answers numbered frames alone), other keys as one."""
    import json

    from bench.live import key_frames

    down, up = key_frames({"intent": "left"}, 7)
    assert json.loads(down) == {"intent": "hold_left", "seq": 7}
    assert json.loads(up) == {"intent": "release_left"}
    frame, none = key_frames({"intent": "hard_drop"}, 8)
    assert json.loads(frame) == {"intent": "hard_drop", "seq": 8} and none is None


def test_p99_by_five_seconds_counts_a_timeout_as_a_second():
    from bench.live import Stats

    stats = Stats()
    stats.window_start, stats.window_s = 100.0, 10.0
    for i in range(100):
        stats.latencies.add(100.0 + i * 0.04, 2.0)  # the first 4 s: 2 ms each
        stats.latencies.add(105.0 + i * 0.04, 3.0)
    stats.timeouts.extend([106.0, 106.5])
    assert stats.p99_by(5.0) == [2.0, 1000.0]


def test_the_client_s_loop_lag_by_five_seconds_sits_beside_the_p99s():
    from bench.live import Stats

    stats = Stats()
    stats.window_start, stats.window_s = 100.0, 10.0
    for i in range(100):  # a probe every 50 ms: quick in the first 5 s, 40 ms late in the next
        stats.loop_lag_at.append(100.0 + i * 0.05 + (5.0 if i >= 50 else 0.0))
        stats.loop_lags.append(40.0 if i >= 50 else 0.5)
    stats.loop_lag_at.append(99.0)  # before the window: in no stretch
    stats.loop_lags.append(900.0)
    assert stats.loop_lag_p99_by(5.0) == [0.5, 40.0]


def keys_in_a_window(start=100.0, until=110.0):
    from bench.live import Keys, Stats, Track, Window

    window = Window()
    window.start, window.until = start, until
    stats = Stats()
    return Keys(stats, Track(), 1), stats, window


def test_a_key_answered_within_a_second_is_measured_and_a_later_answer_is_a_timeout():
    keys, stats, window = keys_in_a_window()
    keys.sent(1, 101.0, window)
    keys.sent(2, 102.0, window)
    keys.answered(1, 101.005)
    keys.answered(2, 103.5)
    assert stats.latencies.ms == pytest.approx([5.0]) and stats.latencies.sent == [101.0]
    assert stats.timeouts == [102.0] and stats.sent == 2


def test_an_answer_answers_every_key_before_it_as_the_host_acks_once_a_tick():
    keys, stats, window = keys_in_a_window()
    keys.sent(1, 101.0, window)
    keys.sent(2, 101.01, window)
    keys.sent(3, 101.02, window)
    keys.answered(2, 101.03)  # keys 1 and 2 went out in one frame: its ack names the latest
    assert stats.latencies.ms == pytest.approx([30.0, 20.0]) and list(keys.pending) == [3]
    assert stats.without_effect == 0 and stats.timeouts == []


def test_other_sockets_of_the_table_time_the_same_answers():
    from bench.live import Samples, answered_up_to

    keys, stats, window = keys_in_a_window()
    track = keys.track
    keys.sent(1, 101.0, window)
    keys.sent(2, 101.01, window)
    keys.answered(2, 101.02)
    opponent = track.seen_by[2][1]  # seat 2 watching seat 1's keys
    samples, timeouts = Samples(), []
    answered_up_to(opponent, 2, 101.05, samples, timeouts)
    assert samples.ms == pytest.approx([50.0, 40.0]) and not timeouts and not opponent
    assert track.missing_at_opponents() == [101.0, 101.01, 101.0, 101.01]  # seats 3 and 4 never saw them
    assert track.missing_at_spectator() == [101.0, 101.01]


def test_a_key_passed_over_changed_nothing_when_the_next_answer_was_prompt():
    keys, stats, window = keys_in_a_window()
    keys.sent(1, 101.0, window)  # into a wall: never acknowledged
    keys.sent(2, 102.5, window)  # 1.5 s later (the gaps are exponential)
    keys.answered(2, 102.51)
    assert stats.without_effect == 1 and stats.timeouts == []


def test_the_last_key_of_the_window_is_decided_by_a_key_pressed_after_it():
    keys, stats, window = keys_in_a_window()
    keys.sent(1, 109.9, window)  # measured, changes nothing
    keys.sent(2, 111.0, window)  # after the window: not measured, answered at once
    keys.answered(2, 111.01)
    assert stats.without_effect == 1 and stats.timeouts == [] and stats.sent == 1


def test_a_key_passed_over_by_a_late_answer_is_a_timeout_when_its_own_wait_was_too_long():
    keys, stats, window = keys_in_a_window()
    keys.sent(1, 101.0, window)
    keys.sent(2, 101.5, window)
    keys.answered(2, 102.8)  # the server stalled: both waited more than a second
    assert sorted(stats.timeouts) == [101.0, 101.5] and stats.without_effect == 0


def test_a_key_never_answered_is_a_timeout():
    keys, stats, window = keys_in_a_window()
    keys.sent(1, 105.0, window)
    keys.sent(2, 99.0, window)  # before the window: not measured
    keys.unanswered()
    assert stats.timeouts == [105.0] and stats.timeouts_at_stop == 1


def test_timeouts_at_stop_count_only_the_keys_left_without_an_answer():
    keys, stats, window = keys_in_a_window()
    keys.sent(1, 101.0, window)
    keys.answered(1, 102.5)  # late: a timeout, answered
    keys.sent(2, 109.5, window)
    keys.unanswered()  # the player stops, key 2 never answered
    assert sorted(stats.timeouts) == [101.0, 109.5] and stats.timeouts_at_stop == 1


def test_a_short_capacity_sweep():
    run = run_bench("capacity.py", "--tables", "1,2", "--seconds", "2", "--modes", "embedded")
    out, lines = run.lines, run.figures
    for tables in (1, 2):
        assert float(lines[f"embedded_{tables}_p99_ms"]) >= 0, run.stdout
        assert float(lines[f"embedded_{tables}_server_cpu_s_per_table_minute"]) > 0, run.stdout
    assert lines["embedded_tables_under_50ms"] in ("0", "1", "2"), run.stdout
    assert out[-1] in ("disturbed: yes", "disturbed: no"), run.stdout


def test_the_floor_is_given_the_sites_own_unprompted_broadcasts_and_update_size():
    from bench.live import Stats, floor_traffic

    stats = Stats()
    assert floor_traffic(stats, 10) is None  # nothing read: the floor's defaults
    stats.window_s, stats.sent, stats.window_broadcasts = 20.0, 4000, 4700
    stats.update_bytes = [200, 240, 250]
    # 10 tables over 20 s: 23.5 broadcasts a second a table, 20 of them numbered keys
    assert floor_traffic(stats, 10) == (3.5, 240)
    stats.window_broadcasts = 3000  # fewer broadcasts than keys (several acks in one)
    assert floor_traffic(stats, 10) == (0.0, 240)


def test_a_short_floor_run_measures_its_play_alone_with_the_traffic_it_was_given():
    run = run_bench("floor.py", "--tables", "2", "--seconds", "2", "--ticks", "3.5", "--bytes", "300")
    lines = run.figures
    assert (lines["ticks"], lines["bytes"]) == ("3.5", "300"), run.stdout
    assert float(lines["window_s"]) >= 2.0, run.stdout
    assert float(lines["broadcasts_per_table_s"]) > 3.5, run.stdout
    assert run.stdout.splitlines()[-1] in ("disturbed: yes", "disturbed: no"), run.stdout


def test_the_floor_s_window_opens_once_every_socket_is_connected():
    # it held the connecting (and the closing) before: 31.4 s read for 30 s of play
    import asyncio

    from bench.floor import Window

    async def scenario() -> list[str]:
        seen: list[str] = []
        window = Window(3, 10.0, lambda: seen.append("open"))
        first = asyncio.ensure_future(window.connected())
        second = asyncio.ensure_future(window.connected())
        await asyncio.sleep(0)
        seen.append(f"waiting {first.done() or second.done()} {window.until}")
        await window.connected()
        await asyncio.gather(first, second)
        seen.append(f"until set {window.until < float('inf')}")
        return seen

    assert asyncio.run(scenario()) == ["waiting False inf", "open", "until set True"]


def test_a_player_presses_on_after_the_window_while_a_measured_key_is_undecided():
    # A key into a wall changes nothing and is never answered: only a later answered key
    # tells it from a lost one. The last measured key of a player who stopped a second
    # after the window was counted a timeout (timeouts_at_stop) though it was only passed over.
    from bench.live import ACK_TIMEOUT, DECIDE_SECONDS, Keys, Stats, Track, Window, presses_at

    window = Window()
    window.open(10.0)
    end = window.until + ACK_TIMEOUT
    assert presses_at(window.until - 0.1, window, False) and presses_at(end - 0.01, window, False)
    assert not presses_at(end + 0.01, window, False)
    assert presses_at(end + DECIDE_SECONDS - 0.01, window, True)
    assert not presses_at(end + DECIDE_SECONDS + 0.01, window, True)

    stats = Stats()
    keys = Keys(stats, Track(), 1)
    keys.sent(1, window.until - 0.2, window)  # measured, into a wall: never answered
    keys.sent(2, end + 1.5, window)  # pressed only because key 1 was undecided
    keys.answered(2, end + 1.52)
    assert stats.without_effect == 1 and not stats.timeouts and not keys.pending


def test_keys_taken_that_changed_nothing_are_answered_and_never_awaited_elsewhere():
    keys, stats, window = keys_in_a_window()
    track = keys.track
    keys.sent(1, 101.0, window)
    keys.sent(2, 101.01, window)
    keys.unshown(2, 101.02)  # ``<!--a1:2-->``: both taken, neither shown
    assert stats.latencies.ms == pytest.approx([20.0, 10.0]) and not keys.pending
    assert track.missing_at_spectator() == [] and track.missing_at_opponents() == []
