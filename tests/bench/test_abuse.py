"""bench/abuse.py's chat flood: its texts meet the server's chat refusals, its bound is
the budgets' arithmetic, its figures print before the headline, and a short run of it
works end to end. No timing thresholds: what is measured is the bench's business, not
the tests'."""

from __future__ import annotations

import os
import subprocess
import sys
import unicodedata

from django.conf import settings

from bench.abuse import CHAT_REFUSALS, chat_texts, chat_written_bound, report, say_frame
from bench.live import Stats
from bench.machine import Reading, Split
from bench.proxy import binary as nginx_binary
from games import wire
from lobby import chat
from tests.bench.runs import ROOT, run_bench
from tests.needs import need, port_open


def _outcome(text: str) -> str:
    """What the server does with a chat frame saying ``text``: its refusal's code, or "written"."""
    frame = say_frame(text)
    if len(frame) > settings.WS_MAX_FRAME_BYTES:
        return "FRAME_TOO_LARGE"  # at the edge (lobby/edge.py), before any parsing
    try:
        said = wire.decode(frame, wire.LOBBY_FRAMES)
        chat.checked_text(said.text)
    except (wire.FrameError, chat.ChatRefused) as err:
        return err.code
    return "written"


def test_the_chat_flood_says_the_longest_message_and_meets_each_refusal_of_a_text():
    texts = chat_texts(settings.CHAT_MAX_LENGTH)
    outcomes = [_outcome(text) for text in texts]
    assert outcomes[0] == "written" and len(chat.clean_text(texts[0])) == settings.CHAT_MAX_LENGTH
    assert {"written", "CHAT_TOO_LONG", "CHAT_EMPTY", "FRAME_TOO_LARGE"} <= set(outcomes), outcomes


def test_the_chat_flood_s_markup_reaches_the_page_s_escaping_and_its_zalgo_is_cut_down():
    texts = chat_texts(settings.CHAT_MAX_LENGTH)
    written = [chat.clean_text(text) for text, outcome in zip(texts, map(_outcome, texts), strict=True)
               if outcome == "written"]
    assert any("<script>" in text for text in written)  # left as it is by the cleaning: escaped when shown
    assert any('onerror="' in text for text in written)
    piled = max(texts, key=lambda text: sum(unicodedata.category(c) == "Mn" for c in text))
    assert sum(unicodedata.category(c) == "Mn" for c in piled) >= 100
    assert len(chat.clean_text(piled)) < len(piled) / 3


def test_the_written_bound_is_an_address_s_budget_or_its_writers_whichever_is_less():
    budget = {"burst": 5, "per_minute": 20, "address_burst": 12, "address_per_minute": 40}
    shared = [{"address": None}] * 6  # the attack's own address
    alone = [{"address": f"127.0.67.{i}"} for i in (1, 2, 3)]
    spec = {"budget": budget, "writers": shared + alone}
    # 30 s: a writer 5 + 10 = 15 (alone, each), the shared address 12 + 20 = 32 (less than 6 × 15)
    assert chat_written_bound(spec, 30) == 32 + 3 * 15
    assert chat_written_bound(spec, 0) == 12 + 3 * 5
    assert chat_written_bound({"budget": budget, "writers": shared[:2]}, 0) == 10  # two writers: under the address's


SERVER_PID = 4242
SPLIT = Split(frozenset({0}), frozenset({1}))


def _reading(window_s: float, others_cpu_s: float, server_cpu_s: float = 1.0) -> Reading:
    return Reading(window_s=window_s, others_cpu_s=others_cpu_s, kernel_cpu_s=0.01, load_avg_1m=0.4,
                   ours={SERVER_PID: server_cpu_s, 1: 0.5, 2: 0.25})


def _quiet(others_cpu_s: float = 0.0) -> dict:
    return {"window": (0.0, 1.0), "rss_growth_mb": 0.0, "server_cpu_s": 1.0, "threads_after": 7, "db_connections_after": 6,
            "tracebacks_total": 0, "machine": _reading(1.0, others_cpu_s),
            "machine_overall": _reading(10.0, others_cpu_s, server_cpu_s=3.0)}


def _chat_result(others_cpu_s: float = 0.0) -> dict:
    return {"window": (2.0, 3.0), "rss_peak_mb": 100.0, "rss_capped": False, "server_cpu_s": 1.0,
            "rss_growth_mb": 0.5, "threads_after": 7, "db_connections_after": 6, "tracebacks": 0,
            "server_alive": True, "sent": 40, "errors": {"MUTED": 30, "BUSY": 1}, "written": 12,
            "written_bound": 20, "muted_accounts": "1/2", "mutes_logged": 1, "unescaped": 0,
            "texts_received": 9, "machine": _reading(1.0, others_cpu_s)}


def test_the_chat_figures_print_before_the_headline(capsys):
    report(Stats(), _quiet(), {"chat": _chat_result()}, ["chat"], 90.0, SPLIT, [SERVER_PID])
    lines = dict(line.split(": ", 1) for line in capsys.readouterr().out.splitlines())
    assert list(lines)[-2:] == ["worst_p99_ratio", "disturbed"]
    assert lines["disturbed"] == "no" and lines["disturbed_windows"] == "none"
    refused = lines["chat_refused"].split()
    assert [item.split("×")[0] for item in refused] == [*CHAT_REFUSALS, "BUSY"]  # every code, 0 or not
    assert "MUTED×30" in refused and "CHAT_FLOOD×0" in refused
    assert (lines["chat_sent"], lines["chat_written"], lines["chat_written_bound"]) == ("40", "12", "20")
    assert lines["chat_unescaped_texts"] == "0 of 9"
    assert "chat_p99_ratio" in lines and "chat_spectator_p99_ms" in lines and "quiet_spectator_p99_ms" in lines


def test_the_split_each_side_s_cpu_and_the_others_print_and_a_disturbed_window_says_so(capsys):
    # an attack's window where others took 0.2 of a core: the run says so, in its last line
    report(Stats(), _quiet(), {"chat": _chat_result(others_cpu_s=0.2)}, ["chat"], 90.0, SPLIT, [SERVER_PID])
    lines = dict(line.split(": ", 1) for line in capsys.readouterr().out.splitlines())
    assert (lines["server_cpus"], lines["client_cpus"]) == ("0", "1")
    assert lines["server_cpu_s"] == "3.00" and lines["client_cpu_s"].startswith("0.75 ")
    assert (lines["quiet_others_cpu_s"], lines["chat_others_cpu_s"], lines["others_cpu_s"]) == ("0.00", "0.20", "0.00")
    assert lines["load_avg_1m"] == "0.40"
    assert lines["disturbed_windows"] == "chat"
    assert list(lines)[-1] == "disturbed" and lines["disturbed"] == "yes"


def test_a_short_run_of_the_chat_flood():
    run = run_bench("abuse.py", "--tables", "2", "--seconds", "3", "--attacks", "chat", timeout=600)
    lines = run.figures
    assert "chat_error" not in lines, run.stdout
    assert int(lines["chat_sent"]) > 0, run.stdout
    assert 0 < int(lines["chat_written"]) <= int(lines["chat_written_bound"]), run.stdout
    assert lines["chat_unescaped_texts"].startswith("0 of "), run.stdout
    assert lines["chat_tracebacks"] == "0", run.stdout
    assert lines["chat_honest_sockets_dropped"] == "0", run.stdout
    assert run.stdout.splitlines()[-2].startswith("worst_p99_ratio: "), run.stdout
    assert run.stdout.splitlines()[-1] in ("disturbed: yes", "disturbed: no"), run.stdout
    assert (lines["server_cpus"], lines["client_cpus"]) == ("0", "1") or len(os.sched_getaffinity(0)) != 2
    assert float(lines["others_cpu_s"]) >= 0 and float(lines["chat_others_cpu_s"]) >= 0, run.stdout


def test_a_short_run_of_the_pages_and_churn_attacks_in_scale_out():
    need(port_open("127.0.0.1", 5432), "PostgreSQL is not running on 127.0.0.1:5432")
    need(port_open("127.0.0.1", 6379), "Redis is not running on 127.0.0.1:6379")
    need(nginx_binary() is not None, "nginx is not installed (apt-get install -y nginx)")
    run = run_bench("abuse.py", "--scale-out", "--tables", "2", "--seconds", "3", "--attacks", "pages,churn",
                    timeout=600)
    lines = run.figures
    assert lines["mode"] == "scale-out", run.stdout
    assert lines["server_processes"] == "daphne1 daphne2 pages nginx", run.stdout
    assert lines["honest_games_started"] == "2" and lines["honest_sockets_dropped"] == "0", run.stdout
    for name in ("pages", "churn"):
        assert f"{name}_error" not in lines, run.stdout
        assert lines[f"{name}_tracebacks"] == "0", run.stdout
        assert lines[f"{name}_p99_ratio"] != "nan", run.stdout
    assert "429×" in lines["pages_answers"], run.stdout  # nginx's limits per address, or the site's
    assert int(lines["quiet_db_connections"]) > 0, run.stdout  # PostgreSQL's, to the run's own database
    assert run.stdout.splitlines()[-2].startswith("worst_p99_ratio: "), run.stdout
    assert run.stdout.splitlines()[-1] in ("disturbed: yes", "disturbed: no"), run.stdout


def test_the_chat_flood_is_refused_in_scale_out_with_the_reason():
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "abuse.py"), "--scale-out", "--attacks", "chat"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "chat reads its books from the SQLite database" in done.stderr, done.stderr
    assert done.stdout == ""


def test_each_attack_is_set_against_the_quiet_window_just_before_it(capsys):
    # The honest tables grew slower on their own (their games went on): the first quiet
    # window's p99 is 2 ms, the one before the chat 8 ms, the chat's own 10 ms. The
    # chat is 1.25× its own quiet window, not 5× the first.
    stats = Stats()
    for i in range(100):
        stats.latencies.add(0.0 + i / 200, 2.0)
        stats.latencies.add(4.0 + i / 200, 8.0)
        stats.latencies.add(6.0 + i / 200, 10.0)
    chat_quiet = {**_quiet(), "window": (4.0, 5.0), "server_cpu_s": 2.5, "machine": _reading(1.0, 0.0)}
    result = {**_chat_result(), "window": (6.0, 7.0), "server_cpu_s": 3.0, "quiet": chat_quiet}
    report(stats, {**_quiet(), "server_cpu_s": 1.5}, {"chat": result}, ["chat"], 90.0, SPLIT, [SERVER_PID])
    lines = dict(line.split(": ", 1) for line in capsys.readouterr().out.splitlines())
    assert lines["quiet_p99_ms"] == "2.00" and lines["quiet_server_cpu_s"] == "1.5"
    assert lines["chat_quiet_p99_with_timeouts_ms"] == "8.00" and lines["chat_p99_ms"] == "10.00"
    assert lines["chat_p99_ratio"] == "1.25" and lines["worst_p99_ratio"] == "1.25"
    assert (lines["chat_server_cpu_s"], lines["chat_quiet_server_cpu_s"]) == ("3.0", "2.5")
    assert lines["disturbed"] == "no"


def test_a_disturbed_quiet_window_before_an_attack_makes_its_ratio_not_hold(capsys):
    chat_quiet = {**_quiet(), "window": (4.0, 5.0), "server_cpu_s": 2.5, "machine": _reading(1.0, 0.2)}
    result = {**_chat_result(), "quiet": chat_quiet}
    report(Stats(), _quiet(), {"chat": result}, ["chat"], 90.0, SPLIT, [SERVER_PID])
    lines = dict(line.split(": ", 1) for line in capsys.readouterr().out.splitlines())
    assert lines["chat_quiet_others_cpu_s"] == "0.20"
    assert lines["disturbed_windows"] == "chat_quiet" and lines["disturbed"] == "yes"
