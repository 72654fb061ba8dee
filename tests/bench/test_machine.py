"""bench/machine.py: whose CPU a window's time was (on fake /proc trees, and once on the
real one: a busy child of the bench is its own, a busy process it let go is others'),
and the CPU split of servers and clients. No timing thresholds on the real machine
beyond "at least what that process used": other work may share it."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bench.machine import (
    CLOCK_TICKS,
    PF_KTHREAD,
    Machine,
    Split,
    cpus_text,
    disturbed,
    machine_cpus,
    parse_cpus,
    pin,
    read_task,
    split,
    steal_ticks,
)

ME = 100  # the bench's pid in the fake trees
ROOT = Path(__file__).resolve().parent.parent.parent


class FakeProc:
    """A /proc with only what bench/machine.py reads: <pid>/stat, <pid>/cmdline and loadavg."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.tasks: dict[int, dict] = {}
        self.load("0.50 0.40 0.30 1/100 999")

    def load(self, text: str) -> None:
        (self.root / "loadavg").write_text(text + "\n")

    def steal(self, ticks: int) -> None:
        """/proc/stat's first lines, as proc(5) shows them: the eighth figure is steal."""
        (self.root / "stat.new").write_text(
            f"cpu  142484 4167 18430 212958 1543 0 4473 {ticks} 0 0\n"
            "cpu0 68611 1428 7937 111260 229 0 2389 0 0 0\nintr 1 2 3\n")
        (self.root / "stat.new").replace(self.root / "stat")

    def put(self, pid: int, ppid: int, cpu: int = 0, reaped: int = 0, started: int = 1, comm: str = "p",
            kernel: bool = False, cmdline: str = "") -> None:
        self.tasks[pid] = dict(ppid=ppid, cpu=cpu, reaped=reaped, started=started, comm=comm, kernel=kernel)
        folder = self.root / str(pid)
        folder.mkdir(exist_ok=True)
        flags = PF_KTHREAD if kernel else 0x400000
        # the fields of proc(5), utime carrying all the CPU (stime 0), cutime the reaped;
        # written whole, as the kernel shows it (the sampler's thread may be reading)
        (folder / "stat.new").write_text(
            f"{pid} ({comm}) S {ppid} {pid} {pid} 0 -1 {flags} 0 0 0 0 {cpu} 0 {reaped} 0 20 0 1 0 {started}"
            " 1000 100 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n")
        (folder / "stat.new").replace(folder / "stat")
        (folder / "cmdline").write_bytes(cmdline.replace(" ", "\0").encode())

    def grow(self, pid: int, cpu: int = 0, reaped: int = 0) -> None:
        task = self.tasks[pid]
        self.put(pid, task["ppid"], task["cpu"] + cpu, task["reaped"] + reaped, task["started"], task["comm"],
                 task["kernel"])

    def end(self, pid: int) -> None:
        """The process exits and is waited for (what it used since it was last shown, and
        its whole time, show in its parent's reaped time: the caller's ``grow``)."""
        for name in ("stat", "cmdline"):
            (self.root / str(pid) / name).unlink()
        (self.root / str(pid)).rmdir()
        del self.tasks[pid]


@pytest.fixture
def proc(tmp_path):
    fake = FakeProc(tmp_path)
    fake.put(1, 0, cpu=500, comm="init")
    fake.put(ME, 1, cpu=1000, comm="python")
    return fake


def _machine(proc: FakeProc, **kwargs) -> Machine:
    return Machine(ME, root=str(proc.root), **kwargs)


def _seconds(ticks: int) -> float:
    return ticks / CLOCK_TICKS


def test_others_count_from_the_window_s_start_and_ours_by_process(proc):
    proc.put(200, 1, cpu=5000, comm="busy neighbour")
    proc.put(101, ME, cpu=10, comm="daphne")
    proc.put(102, 101, cpu=0, comm="daphne's child")
    proc.put(2, 0, cpu=1, comm="kthreadd", kernel=True)
    proc.put(14, 2, cpu=7, comm="ksoftirqd/0", kernel=True)
    machine = _machine(proc)
    start = machine.mark()
    proc.grow(200, cpu=30)
    proc.grow(101, cpu=40)
    proc.grow(102, cpu=5)
    proc.grow(ME, cpu=20)
    proc.grow(14, cpu=3)
    proc.load("1.75 0.40 0.30 1/100 999")
    reading = machine.between(start, machine.mark())
    assert reading.others_cpu_s == pytest.approx(_seconds(30))  # not its 5000 before the window
    assert reading.others_by_command == pytest.approx({"busy neighbour": _seconds(30)})
    assert reading.others_top() == f"busy neighbour={_seconds(30):.2f}"
    assert reading.kernel_cpu_s == pytest.approx(_seconds(3))
    assert reading.ours == pytest.approx({101: _seconds(40), 102: _seconds(5), ME: _seconds(20)})
    assert reading.cpu_of([101, 102]) == pytest.approx(_seconds(45))
    assert reading.load_avg_1m == 1.75


def test_a_process_that_starts_in_the_window_counts_from_zero_and_a_reused_pid_too(proc):
    proc.put(300, 1, cpu=50, started=7, comm="old")
    machine = _machine(proc)
    start = machine.mark()
    proc.put(301, 1, cpu=12, started=9, comm="new")  # new since the start
    proc.end(300)
    proc.put(300, 1, cpu=4, started=11, comm="reused")  # the same pid, another process
    reading = machine.between(start, machine.mark())
    assert reading.others_cpu_s == pytest.approx(_seconds(12 + 4))
    assert reading.others_by_command == pytest.approx({"new": _seconds(12), "reused": _seconds(4)})


def test_a_process_that_exits_counts_all_it_used_in_the_window(proc):
    proc.put(400, 1, cpu=0, comm="make")
    proc.put(401, 400, cpu=10, reaped=2, comm="cc")
    machine = _machine(proc)
    start = machine.mark()
    proc.grow(401, cpu=20)
    machine.sample()
    proc.end(401)  # 15 more, then its parent waited for it: 45 + 2 reaped into make's
    proc.grow(400, reaped=45 + 2)
    reading = machine.between(start, machine.mark())
    assert reading.others_cpu_s == pytest.approx(_seconds(45 - 10))
    assert reading.others_by_command == pytest.approx({"cc": _seconds(20)})  # what the readings saw


def test_a_process_never_seen_counts(proc):
    proc.put(500, 1, cpu=0, comm="pytest")
    machine = _machine(proc)
    start = machine.mark()
    proc.grow(500, cpu=3, reaped=25)  # a short-lived git call, started and reaped between readings
    reading = machine.between(start, machine.mark())
    assert reading.others_cpu_s == pytest.approx(_seconds(28))


def test_a_tree_of_others_that_exits_at_once_brings_back_only_its_window(proc):
    # a test run's browser: hours of CPU before the window, all reaped up the tree at once
    proc.put(800, 1, cpu=0, comm="pytest")
    proc.put(801, 800, cpu=9000, reaped=0, comm="chromium")
    proc.put(802, 801, cpu=40000, comm="renderer")
    machine = _machine(proc)
    start = machine.mark()
    proc.end(802)  # 2 more, and 1 more for its parent: both go, the one waiting for the other
    proc.end(801)
    proc.grow(800, reaped=9001 + 40002)
    reading = machine.between(start, machine.mark())
    assert reading.others_cpu_s == pytest.approx(_seconds(3))


def test_an_orphan_init_waits_for_brings_back_only_its_tail(proc):
    proc.put(900, 1, cpu=0, comm="pytest")
    proc.put(901, 900, cpu=100, comm="chromium")
    proc.put(902, 901, cpu=7000, reaped=50, comm="renderer")
    machine = _machine(proc)
    start = machine.mark()
    # the browser goes (its runner waits for it), its renderer, taken by init, 4 later
    proc.end(901)
    proc.grow(900, reaped=100 + 1)
    proc.end(902)
    proc.grow(1, reaped=7000 + 50 + 4)
    reading = machine.between(start, machine.mark())
    assert reading.others_cpu_s == pytest.approx(_seconds(1 + 4))


def test_a_kernel_thread_that_goes_takes_nothing_from_the_others(proc):
    proc.put(3, 2, cpu=80, comm="kworker/0:2", kernel=True)  # reaped by no one, its time added to no one
    proc.put(950, 1, cpu=0, comm="make")
    machine = _machine(proc)
    start = machine.mark()
    proc.end(3)
    proc.grow(950, reaped=12)
    reading = machine.between(start, machine.mark())
    assert reading.others_cpu_s == pytest.approx(_seconds(12))


def test_the_bench_s_own_children_stay_ours_when_they_are_reparented_or_reaped(proc):
    proc.put(110, ME, cpu=0, comm="attacker")
    machine = _machine(proc)
    start = machine.mark()
    proc.grow(110, cpu=30)
    machine.sample()
    proc.put(110, 1, cpu=proc.tasks[110]["cpu"] + 5, comm="attacker")  # its parent gone, init took it
    machine.sample()
    proc.end(110)
    proc.grow(1, reaped=35 + 6)  # 6 more, then init reaps it
    reading = machine.between(start, machine.mark())
    assert reading.ours[110] == pytest.approx(_seconds(35))
    assert reading.others_cpu_s == pytest.approx(_seconds(6))  # the unseen tail, not followed to init


def test_the_bench_waits_for_its_attacker_and_the_tail_is_the_bench_s(proc):
    proc.put(120, ME, cpu=0, comm="attacker")
    proc.put(121, 120, cpu=0, comm="its helper")
    machine = _machine(proc)
    start = machine.mark()
    proc.grow(120, cpu=40)
    proc.grow(121, cpu=10)
    machine.sample()
    proc.end(121)  # both go between two readings, the helper after 3 more, the attacker 8:
    proc.end(120)  # the attacker reaps its helper, the bench the attacker
    proc.grow(ME, cpu=1, reaped=48 + 13)
    reading = machine.between(start, machine.mark())
    assert reading.ours_cpu_s == pytest.approx(_seconds(1 + 48 + 13))
    assert reading.ours[ME] == pytest.approx(_seconds(1 + 8 + 3))
    assert reading.others_cpu_s == 0


def test_registered_and_claimed_services_are_ours_and_claimed_ones_are_named(proc):
    proc.put(600, 1, cpu=0, comm="postgres", cmdline="postgres: postgres tetriwar_bench_ab12 127.0.0.1(4) idle")
    proc.put(601, 1, cpu=0, comm="postgres", cmdline="postgres: postgres other_db 127.0.0.1(5) idle")
    proc.put(602, 1, cpu=0, comm="redis-server", cmdline="redis-server 127.0.0.1:6379")
    proc.put(603, 1, cpu=0, comm="nginx")
    proc.put(604, 603, cpu=0, comm="nginx")
    machine = _machine(proc, claim=lambda line: "tetriwar_bench_ab12" in line or line.startswith("redis-server"))
    machine.register(603)
    start = machine.mark()
    for pid in (600, 601, 602, 603, 604):
        proc.grow(pid, cpu=10)
    reading = machine.between(start, machine.mark())
    assert set(reading.ours) == {600, 602, 603, 604}
    assert reading.others_cpu_s == pytest.approx(_seconds(10))  # the other database's backend
    assert reading.services == {600, 602}
    assert reading.services_cpu_s == pytest.approx(_seconds(20))


def test_a_command_name_with_parentheses_and_spaces_is_read(proc):
    proc.put(700, 1, cpu=33, reaped=4, started=77, comm="a) (b c")
    task = read_task(700, str(proc.root))
    assert (task.ppid, task.cpu, task.reaped, task.started, task.kernel) == (1, 33, 4, 77, False)
    assert task.name == "a) (b c"


def test_disturbed_is_more_than_a_tenth_of_a_core():
    assert not disturbed(3.0, 30.0)
    assert disturbed(3.01, 30.0)
    assert not disturbed(0.0, 0.0)
    assert disturbed(2.0, 30.0, steal_s=1.01) and not disturbed(2.0, 30.0, steal_s=1.0)  # together


def test_the_hypervisor_s_steal_is_read_and_disturbs_a_run_with_the_others(proc):
    machine = _machine(proc)
    start = machine.mark()  # no /proc/stat in the fake tree yet: nothing stolen
    assert steal_ticks(str(proc.root)) == 0
    proc.steal(1000)  # the steal before the window is not the window's
    start = machine.mark()
    proc.steal(1000 + 2 * CLOCK_TICKS)
    proc.grow(1, cpu=2 * CLOCK_TICKS)
    reading = machine.between(start, machine.mark())
    assert reading.steal_s == pytest.approx(2.0)
    assert reading.others_cpu_s == pytest.approx(2.0)
    # 2 s of others and 2 s stolen over 30 s: neither alone is a tenth of a core, together they are
    over_30_s = dataclasses.replace(reading, window_s=30.0)
    assert over_30_s.disturbed
    assert not dataclasses.replace(over_30_s, steal_s=0.0).disturbed
    assert not dataclasses.replace(over_30_s, others_cpu_s=0.0).disturbed
    assert steal_ticks("/nonexistent") == 0


def test_the_real_machine_s_steal_is_read():
    assert steal_ticks() >= 0


def test_the_sampler_runs_between_start_and_stop(proc):
    machine = _machine(proc, every=0.01)
    start = machine.start()
    proc.grow(1, cpu=9)
    time.sleep(0.1)
    reading = machine.between(start, machine.stop())
    assert machine.thread is None
    assert reading.others_cpu_s == pytest.approx(_seconds(9))
    assert reading.window_s >= 0.1


# --- the CPU split ------------------------------------------------------------------------

def test_cpu_lists_read_and_print_as_the_options_take_them():
    assert parse_cpus("0") == {0}
    assert parse_cpus("0-1") == {0, 1}
    assert parse_cpus("0,2") == {0, 2}
    assert parse_cpus("0-2,5") == {0, 1, 2, 5}
    for bad in ("", "a", "2-1", "-1", "1-"):
        with pytest.raises(ValueError):
            parse_cpus(bad)
    assert [cpus_text(c) for c in ({0}, {0, 1}, {0, 2}, {0, 1, 2, 5})] == ["0", "0-1", "0,2", "0-2,5"]


def test_the_default_split_is_server_first_half_clients_the_rest():
    assert split(available=[0, 1]) == Split(frozenset({0}), frozenset({1}))
    assert split(available=[0, 1, 2, 3]) == Split(frozenset({0, 1}), frozenset({2, 3}))
    assert split(available=[0, 1, 2]) == Split(frozenset({0}), frozenset({1, 2}))
    one = split(available=[3])
    assert one == Split(frozenset({3}), frozenset({3})) and one.shared
    assert "shared with the clients" in one.lines()[0]
    assert split(available=[0, 1]).lines() == ["server_cpus: 0", "client_cpus: 1"]


def test_one_side_named_gives_the_other_the_rest():
    assert split("1", None, available=[0, 1]) == Split(frozenset({1}), frozenset({0}))
    assert split(None, "0,2", available=[0, 1, 2, 3]) == Split(frozenset({1, 3}), frozenset({0, 2}))
    assert split("0-1", None, available=[0, 1]).shared  # nothing left: the clients share them
    assert split("0", "1", available=[0, 1]).args() == ["--server-cpus", "0", "--client-cpus", "1"]
    with pytest.raises(ValueError, match="this machine has CPUs 0-1"):
        split("4", None, available=[0, 1])


def test_a_pinned_bench_may_still_name_every_cpu_of_the_machine_for_the_one_it_starts():
    # bench/live.py runs on the client CPUs when it starts bench/floor.py with its split
    cpus = sorted(machine_cpus() & os.sched_getaffinity(0))
    if len(cpus) < 2:
        pytest.skip("one CPU: nothing to split")
    code = (f"import os, sys; sys.path.insert(0, {str(ROOT)!r})\n"
            f"from bench.machine import split\n"
            f"assert os.sched_getaffinity(0) == {{{cpus[-1]}}}\n"
            f"print(split('{cpus[0]}', '{cpus[-1]}').args(), split().args())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         preexec_fn=lambda: os.sched_setaffinity(0, {cpus[-1]}))
    assert out.stdout.split("] [")[0] == f"['--server-cpus', '{cpus[0]}', '--client-cpus', '{cpus[-1]}'"
    # left to itself, a pinned bench keeps to its own CPU, both sides on it
    assert out.stdout.strip().endswith(f"['--server-cpus', '{cpus[-1]}', '--client-cpus', '{cpus[-1]}']")


# --- on the real machine -------------------------------------------------------------------

BUSY = "import time\nwhile True: pass\n"


def _cpu_now(pid: int) -> float:
    return read_task(pid).cpu / CLOCK_TICKS


def _wait(condition, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_a_busy_child_is_ours_and_a_busy_process_let_go_is_others(tmp_path):
    machine = Machine(every=0.2)
    start = machine.start()
    child = subprocess.Popen([sys.executable, "-c", BUSY])
    pidfile = tmp_path / "pid"
    # a double fork: the shell starts the loop in the background and exits, and the loop,
    # its parent gone, is init's: not the bench's
    subprocess.run(["sh", "-c", f"(sh -c 'echo $$ > {pidfile}.tmp; mv {pidfile}.tmp {pidfile}; "
                                "while :; do :; done' &); exit 0"], check=True)
    orphan = None
    try:
        _wait(pidfile.exists)
        orphan = int(pidfile.read_text())
        # however busy the machine is, until each has had a third of a second
        _wait(lambda: _cpu_now(orphan) >= 0.35 and _cpu_now(child.pid) >= 0.35)
        orphan_cpu, child_cpu = _cpu_now(orphan), _cpu_now(child.pid)
        assert read_task(orphan).ppid != os.getpid()
    finally:
        child.kill()
        child.wait()
        if orphan is not None:
            os.kill(orphan, 9)
    reading = machine.between(start, machine.stop())
    assert orphan not in reading.ours
    assert reading.ours.get(child.pid, 0) > 0
    assert reading.cpu_of([child.pid, os.getpid()]) >= child_cpu - 0.05
    assert reading.others_cpu_s >= orphan_cpu


def test_pin_puts_every_thread_of_a_running_process_on_the_cpus():
    cpus = sorted(os.sched_getaffinity(0))
    target = {cpus[-1]}
    code = ("import threading, time\n"
            "for _ in range(3): threading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n"
            "print('up', flush=True)\ntime.sleep(30)\n")
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "up"
        pin(child.pid, target)
        tids = [int(tid) for tid in os.listdir(f"/proc/{child.pid}/task")]
        assert len(tids) == 4
        assert all(os.sched_getaffinity(tid) == target for tid in tids)
    finally:
        child.kill()
        child.wait()
    # and a thread this process starts after it is pinned inherits it
    before = os.sched_getaffinity(0)
    seen = {}
    try:
        pin(os.getpid(), target)
        thread = threading.Thread(target=lambda: seen.setdefault("cpus", os.sched_getaffinity(0)))
        thread.start()
        thread.join()
    finally:
        pin(os.getpid(), before)
    assert seen["cpus"] == target
