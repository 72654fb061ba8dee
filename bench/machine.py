"""The machine around a benchmark: what else ran during its window, and which CPUs its
own processes run on. No Django: bench/live.py, bench/floor.py and bench/abuse.py use it
before and beside their servers.

Others' CPU. A ``Machine`` reads every process's user + system CPU time from
``/proc/<pid>/stat`` once at the start (the baseline) and then every second in a thread
of the bench's own, until it stops; ``mark()`` reads at once and returns the running
totals, and ``between(a, b)`` turns two marks into a ``Reading`` of that window. A process is the bench's own ("ours") when it
is the bench's process, a registered pid (``register``: a service the bench started), a
process the bench claims (``claim``: e.g. the machine's Redis and the PostgreSQL
backends of the bench's scratch database, which work for the bench though it did not
start them), or a descendant of one of them when first seen (reparented later, it stays
ours).

- Each process counts what it used while seen: from the baseline if it was there at
  the start, from zero if it appeared later (it started during the window), up to its
  last reading if it exited. ``others_top`` names the busiest others by command.
- What a process used after its last reading, and the whole of one too short-lived
  for any reading (a test suite's compiler, a git call), comes back once it is waited
  for: its parent's reaped-children time (``cutime + cstime``) grows by all it used.
  Over one interval between readings, the growth of every process's reaped time less
  what the processes gone since the last reading had shown (their own time and their
  reaped time, hours before the window included) is exactly that unseen time, whoever
  waited for whom (a tree of processes that exits at once, a test run's browser, goes
  up through ancestors that are gone too). Followed parent by parent instead, an
  orphan taken by init would bring back all it ever used. Of that unseen time, what
  comes back through one of ours (the bench waits for its attackers: its growth less
  what the children, and theirs gone with them, showed) is ours; the rest is others'.
  A process whose parent ignores it (``SIGCHLD`` ignored: reaped by the kernel, its
  time added to no one) counts only what it showed.
- ``others_cpu_s`` is the two together: what every process not ours used in the window.
- Kernel threads (``PF_KTHREAD`` in their flags) are ``kernel_cpu_s``, beside others
  and not in them: on loopback much of their work (``ksoftirqd``) is the bench's own
  packets.

The hypervisor's share. On a virtual machine the host may run something else on a CPU
that one of the machine's processes wanted: no process shows that time, and the kernel
counts it as the CPUs' *steal* time (the eighth figure of the ``cpu`` line of
``/proc/stat``). ``steal_s`` is its growth over the window, every CPU of the machine
added up; where there is no such line (not Linux, a fake tree), 0.

A run is disturbed (``disturbed``) when others and the hypervisor together took more
than a tenth of one core over its window. ``load_avg_1m`` is the first figure of
``/proc/loadavg`` at the window's end.

CPUs. ``split`` resolves ``--server-cpus`` and ``--client-cpus`` ("0", "0-1", "0,2"): by
default the first half of the CPUs this process may use goes to the servers and the
rest to the clients (on a 2-core machine CPU 0 and CPU 1); on one CPU both share it,
and the split says so. ``pin`` sets a running process's affinity, every one of its
threads included; ``pin_at_exec`` does it in a child before it runs anything, so that
every thread and process it starts inherits it.
"""

from __future__ import annotations

import argparse
import collections
import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

PROC = "/proc"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PF_KTHREAD = 0x00200000  # in a task's flags (field 9 of its stat): a kernel thread
DISTURBED_SHARE = 0.1  # of one core: more than that taken by others, and the run says so
EVERY = 1.0  # seconds between readings: a scan of ~100 processes costs ~2 ms
TOP = 3  # the busiest others named


def disturbed(others_cpu_s: float, window_s: float, steal_s: float = 0.0) -> bool:
    """Whether processes not the bench's and the hypervisor together took more than a
    tenth of a core over the window."""
    return others_cpu_s + steal_s > DISTURBED_SHARE * window_s


def steal_ticks(root: str = PROC) -> int:
    """Every CPU's steal time so far (the ``cpu`` line of ``/proc/stat``, proc(5)), or 0."""
    try:
        with open(f"{root}/stat") as f:
            fields = f.readline().split()
        return int(fields[8]) if fields and fields[0] == "cpu" and len(fields) > 8 else 0
    except (OSError, ValueError):
        return 0


# --- what every process used ------------------------------------------------------------

@dataclass(frozen=True)
class Task:
    """One process as one scan saw it (times in clock ticks)."""

    pid: int
    ppid: int
    started: int  # since boot: tells a reused pid from the process it replaced
    cpu: int  # utime + stime, every thread of it
    reaped: int  # cutime + cstime: its children that exited and were waited for
    kernel: bool = False  # a kernel thread
    name: str = ""  # the command (its first 15 characters)

    @property
    def key(self) -> tuple[int, int]:
        return self.pid, self.started


def read_task(pid: int, root: str = PROC) -> Task | None:
    """``/proc/<pid>/stat`` as a Task, or None once it is gone."""
    try:
        with open(f"{root}/{pid}/stat") as f:
            text = f.read()
    except OSError:
        return None
    # the command name (field 2) is in parentheses and may hold spaces or ")"
    name, _, rest = text.partition(" (")[2].rpartition(")")
    fields = rest.split()
    if len(fields) < 20:
        return None  # not a process's stat (it went as it was read)
    # fields 4 (ppid), 9 (flags), 14-17 (utime, stime, cutime, cstime), 22 (starttime), from 1
    return Task(pid=pid, ppid=int(fields[1]), started=int(fields[19]),
                cpu=int(fields[11]) + int(fields[12]), reaped=int(fields[13]) + int(fields[14]),
                kernel=bool(int(fields[6]) & PF_KTHREAD), name=name)


def scan(root: str = PROC) -> dict[tuple[int, int], Task]:
    """Every process now, by (pid, start time)."""
    tasks = {}
    for entry in os.listdir(root):
        if entry.isdigit() and (task := read_task(int(entry), root)) is not None:
            tasks[task.key] = task
    return tasks


def command_line(pid: int, root: str = PROC) -> str:
    try:
        with open(f"{root}/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def load_average(root: str = PROC) -> float:
    try:
        with open(f"{root}/loadavg") as f:
            return float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return float("nan")


@dataclass(frozen=True)
class Mark:
    """The running totals at one moment (ticks since the Machine started)."""

    at: float  # time.monotonic()
    others: int
    kernel: int
    ours: dict[int, int]  # pid → ticks
    others_seen: dict[str, int]  # command → ticks, as the others' readings showed it
    load_avg_1m: float
    steal: int = 0  # the machine's steal ticks so far (``steal_ticks``)


@dataclass(frozen=True)
class Reading:
    """What a window cost, from two marks."""

    window_s: float
    others_cpu_s: float
    kernel_cpu_s: float
    load_avg_1m: float  # at the window's end
    ours: dict[int, float]  # pid → CPU seconds, every process of the bench's own seen
    services: frozenset[int] = frozenset()  # the claimed pids among them
    others_by_command: dict[str, float] = field(default_factory=dict)
    steal_s: float = 0.0  # taken by the hypervisor, every CPU added up

    def cpu_of(self, pids: Iterable[int]) -> float:
        return sum(self.ours.get(pid, 0.0) for pid in pids)

    @property
    def ours_cpu_s(self) -> float:
        return sum(self.ours.values())

    @property
    def services_cpu_s(self) -> float:
        return self.cpu_of(self.services)

    @property
    def disturbed(self) -> bool:
        return disturbed(self.others_cpu_s, self.window_s, self.steal_s)

    def others_top(self, n: int = TOP) -> str:
        """``pytest=3.10 chromium=1.20``: the busiest others by command, or ``none``."""
        busiest = sorted(self.others_by_command.items(), key=lambda item: -item[1])[:n]
        return " ".join(f"{name}={cpu:.2f}" for name, cpu in busiest if cpu >= 0.01) or "none"


class Machine:
    """Every process's CPU over the bench's windows; see the module's docstring."""

    def __init__(self, me: int | None = None, *, root: str = PROC, every: float = EVERY,
                 claim: Callable[[str], bool] | None = None) -> None:
        self.root = root
        self.every = every
        self.claim = claim
        self.registered = {os.getpid() if me is None else me}
        self.claimed: set[int] = set()
        self.last: dict[tuple[int, int], Task] = {}
        self.ours: set[tuple[int, int]] = set()
        self.others_ticks = 0
        self.kernel_ticks = 0
        self.ours_ticks: dict[int, int] = {}
        self.others_seen: collections.Counter[str] = collections.Counter()
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None
        self.started = False

    def register(self, *pids: int) -> None:
        """These processes (and what they start) are the bench's own."""
        with self.lock:
            self.registered.update(pids)

    def start(self) -> Mark:
        """The baseline, and a reading every ``every`` seconds until ``stop``."""
        mark = self.mark()
        self.stopping.clear()
        self.thread = threading.Thread(target=self._run, name="machine-sampler", daemon=True)
        self.thread.start()
        return mark

    def stop(self) -> Mark:
        self.stopping.set()
        if self.thread is not None:
            self.thread.join()
            self.thread = None
        return self.mark()

    def _run(self) -> None:
        while not self.stopping.wait(self.every):
            self.sample()

    def mark(self) -> Mark:
        with self.lock:
            self._sample()
            return Mark(at=time.monotonic(), others=self.others_ticks, kernel=self.kernel_ticks,
                        ours=dict(self.ours_ticks), others_seen=dict(self.others_seen),
                        load_avg_1m=load_average(self.root), steal=steal_ticks(self.root))

    def between(self, a: Mark, b: Mark) -> Reading:
        ours = {pid: (ticks - a.ours.get(pid, 0)) / CLOCK_TICKS for pid, ticks in b.ours.items()}
        by_command = {name: (ticks - a.others_seen.get(name, 0)) / CLOCK_TICKS
                      for name, ticks in b.others_seen.items()}
        with self.lock:
            services = frozenset(self.claimed)
        return Reading(window_s=b.at - a.at, others_cpu_s=(b.others - a.others) / CLOCK_TICKS,
                       kernel_cpu_s=(b.kernel - a.kernel) / CLOCK_TICKS, load_avg_1m=b.load_avg_1m,
                       ours=ours, services=services & ours.keys(), others_by_command=by_command,
                       steal_s=max(0, b.steal - a.steal) / CLOCK_TICKS)

    def sample(self) -> None:
        with self.lock:
            self._sample()

    def _sample(self) -> None:
        now = scan(self.root)
        if not self.started:  # the baseline: nothing is counted, every process counts from here
            self.started = True
            self.last = now
            self._classify(now)
            return
        used: dict[tuple[int, int], int] = {}
        for key, task in now.items():
            before = self.last.get(key)
            # a process not seen before started since the last reading: it counts from zero
            used[key] = max(0, task.cpu - before.cpu) if before else task.cpu
            if before and task.cpu < before.cpu:  # a figure that went down (never seen): not counted twice
                now[key] = Task(task.pid, task.ppid, task.started, before.cpu, max(task.reaped, before.reaped),
                                task.kernel, task.name)
        ours = self._classify(now, used)
        gone = [task for key, task in self.last.items() if key not in now and not task.kernel]
        # The time no reading showed (see the module's docstring): all reaped time gained,
        # less all the gone had shown. Kernel threads are reaped by no one: left out.
        unseen = sum(task.reaped - (self.last[key].reaped if key in self.last else 0)
                     for key, task in now.items() if not task.kernel)
        unseen -= sum(task.cpu + task.reaped for task in gone)
        # Of it, what came back through one of ours: its growth less what its gone
        # children, and theirs gone with them, had shown.
        children: dict[int, list[Task]] = collections.defaultdict(list)
        for task in gone:
            children[task.ppid].append(task)

        def shown(task: Task, depth: int = 0) -> int:
            below = children.get(task.pid, []) if depth < 64 else []
            return task.cpu + task.reaped + sum(shown(child, depth + 1) for child in below)

        for key in ours:
            before = self.last.get(key)
            if before is not None and now[key].reaped > before.reaped:
                tail = max(0, now[key].reaped - before.reaped - sum(shown(child) for child in children.get(key[0], [])))
                used[key] += tail
                unseen -= tail
        self.others_ticks += max(0, unseen)  # below zero: a process reaped by the kernel
        for key, ticks in used.items():
            if not ticks:
                continue
            task = now[key]
            if key in ours:
                self.ours_ticks[task.pid] = self.ours_ticks.get(task.pid, 0) + ticks
            elif task.kernel:
                self.kernel_ticks += ticks
            else:
                self.others_ticks += ticks
                self.others_seen[task.name] += ticks
        self.last = now

    def _classify(self, now: dict[tuple[int, int], Task],
                  used: dict[tuple[int, int], int] | None = None) -> set[tuple[int, int]]:
        """The bench's own processes among ``now`` (kept in ``self.ours``)."""
        by_pid = {task.pid: key for key, task in now.items()}
        ours = self.ours

        def is_ours(key: tuple[int, int], depth: int = 0) -> bool:
            if key in ours:
                return True
            task = now[key]
            if task.pid in self.registered:
                ours.add(key)
                return True
            parent = by_pid.get(task.ppid)
            if parent is not None and parent != key and depth < 64 and is_ours(parent, depth + 1):
                ours.add(key)
                return True
            return False

        for key, task in now.items():
            if is_ours(key) or self.claim is None or task.kernel:
                continue
            # A claimed service is known by its command line: read only for a process that
            # used the CPU (the idle hundred are not worth a read a second), or at the start.
            if (used is None or used.get(key)) and self.claim(command_line(key[0], self.root)):
                ours.add(key)
                self.claimed.add(key[0])
        ours &= now.keys()
        return ours


# --- which CPUs ---------------------------------------------------------------------------

def parse_cpus(text: str) -> frozenset[int]:
    """ "0", "0-1", "0,2", "0-1,3" → the CPUs named."""
    cpus: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        low, dash, high = part.partition("-")
        try:
            first, last = int(low), int(high if dash else low)
        except ValueError:
            raise ValueError(f"not a CPU list: {text!r} (e.g. 0, 0-1, 0,2)") from None
        if first < 0 or last < first:
            raise ValueError(f"not a CPU range: {part!r}")
        cpus.update(range(first, last + 1))
    if not cpus:
        raise ValueError(f"no CPU named in {text!r}")
    return frozenset(cpus)


def cpus_text(cpus: Iterable[int]) -> str:
    """The CPUs as a list the options take: "0", "0-1", "0,2"."""
    runs: list[list[int]] = []
    for cpu in sorted(set(cpus)):
        if runs and cpu == runs[-1][1] + 1:
            runs[-1][1] = cpu
        else:
            runs.append([cpu, cpu])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


@dataclass(frozen=True)
class Split:
    """The servers' CPUs and the clients' (the load generator and its attackers)."""

    server: frozenset[int]
    client: frozenset[int]

    @property
    def shared(self) -> bool:
        return bool(self.server & self.client)

    def lines(self) -> list[str]:
        note = " (shared with the clients: the figures include their queueing)" if self.shared else ""
        return [f"server_cpus: {cpus_text(self.server)}{note}", f"client_cpus: {cpus_text(self.client)}"]

    def args(self) -> list[str]:
        """The options that give another bench (bench/floor.py) this same split."""
        return ["--server-cpus", cpus_text(self.server), "--client-cpus", cpus_text(self.client)]


def machine_cpus(root: str = "/sys/devices/system/cpu") -> frozenset[int]:
    """The CPUs online, whatever this process's own affinity (a bench started by a
    pinned bench, as bench/live.py starts bench/floor.py, may still name the others)."""
    try:
        with open(f"{root}/online") as f:
            return parse_cpus(f.read().strip())
    except (OSError, ValueError):
        return frozenset(range(os.cpu_count() or 1))


def split(server: str | None = None, client: str | None = None, available: Iterable[int] | None = None) -> Split:
    """The split the options ask for. Both left out: the first half of the CPUs this
    process may use (``available``, by default its affinity) goes to the servers and
    the rest to the clients; one CPU, both share it. One left out: it takes the CPUs
    the other does not (or shares them, none being left). Raises ValueError for a CPU
    the machine does not have."""
    usable = sorted(os.sched_getaffinity(0) if available is None else set(available))
    known = set(usable) if available is not None else set(usable) | machine_cpus()
    chosen = {}
    for side, text in (("server", server), ("client", client)):
        if text:
            cpus = parse_cpus(text)
            if not cpus <= known:
                raise ValueError(f"--{side}-cpus {text}: this machine has CPUs {cpus_text(known)}")
            chosen[side] = cpus
    if not chosen:
        if len(usable) < 2:
            return Split(frozenset(usable), frozenset(usable))
        half = len(usable) // 2
        return Split(frozenset(usable[:half]), frozenset(usable[half:]))
    pool = frozenset(usable).union(*chosen.values())
    server_cpus = chosen.get("server") or (pool - chosen["client"]) or chosen["client"]
    client_cpus = chosen.get("client") or (pool - chosen["server"]) or chosen["server"]
    return Split(server_cpus, client_cpus)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--server-cpus", metavar="CPUS",
                        help="CPUs of every server process the bench starts, e.g. 0, 0-1, 0,2 "
                             "(default: the first half of the machine's)")
    parser.add_argument("--client-cpus", metavar="CPUS",
                        help="CPUs of the bench itself, its clients and attackers (default: the others)")


def split_from(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Split:
    try:
        return split(args.server_cpus, args.client_cpus)
    except ValueError as err:
        parser.error(str(err))


def pin(pid: int, cpus: Iterable[int], root: str = PROC) -> None:
    """Put a running process, each of its threads, on these CPUs. Threads and processes
    it starts later inherit the affinity of the thread that starts them."""
    cpus = set(cpus)
    try:
        threads = [int(tid) for tid in os.listdir(f"{root}/{pid}/task")]
    except OSError:
        threads = [pid]
    for tid in threads:
        try:
            os.sched_setaffinity(tid, cpus)
        except ProcessLookupError:
            pass  # the thread ended meanwhile


def pin_at_exec(cpus: Iterable[int], then: Callable[[], None] | None = None) -> Callable[[], None]:
    """A ``preexec_fn``: the child takes these CPUs before it runs anything."""
    cpus = set(cpus)

    def preexec() -> None:
        os.sched_setaffinity(0, cpus)
        if then is not None:
            then()

    return preexec


def affinity(pid: int) -> frozenset[int]:
    return frozenset(os.sched_getaffinity(pid))
