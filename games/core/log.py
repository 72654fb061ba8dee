"""The input log of a game, kept compact: what a replay needs, 11 bytes an entry.

A live TetriWar table logs every key of four players for up to 90 minutes; as a list
of ``(time, seat, text)`` tuples that is about 100 bytes an entry, more than the rest
of the game together. Here the times are an ``array('d')`` (exact doubles, so a replay
sees the very same floats), the seats bytes, and each text a number into this log's
own short list of the distinct texts it has seen ("left", "drop:3", "forfeit"...).

It reads like a list of tuples: ``len``, iteration, indexing and slicing give
``(time, seat, text)`` tuples, and it equals any sequence of the same entries.

An entry is checked as it is appended, and written into the arrays with the next few
hundred (``RECENT``) or when the log is read: one list append per input rather than
three array appends, each a call and a conversion (bench/engine.py appends one for
every key of every player).
"""

from __future__ import annotations

import json
import struct
import zlib
from array import array
from collections.abc import Iterator, Sequence
from typing import overload

Entry = tuple[float, int, str]
RECENT = 256  # entries appended and not yet written into the arrays, at most
_TIMES = frozenset({int, float})  # what a time may be without a closer look (``_admit``)


class InputLog(Sequence[Entry]):
    __slots__ = ("_times", "_seats", "_codes", "_texts", "_code_of", "_recent")

    def __init__(self, entries: Sequence[Sequence] = ()) -> None:
        self._times = array("d")
        self._seats = bytearray()
        self._codes = array("H")
        self._texts: list[str] = []
        self._code_of: dict[str, int] = {}
        self._recent: list[tuple[float, int, str]] = []  # appended, not yet in the arrays
        for t, seat, text in entries:
            self.append((t, seat, text))

    def append(self, entry: Entry) -> None:
        t, seat, text = entry
        if text not in self._code_of or not 0 <= seat <= 255 or type(t) not in _TIMES:
            self._admit(t, seat, text)
        recent = self._recent
        recent.append(entry if type(entry) is tuple else (t, seat, text))
        if len(recent) >= RECENT:
            self._write()

    def _admit(self, t: object, seat: int, text: str) -> None:
        """Refuse an entry the arrays cannot hold (nothing is written), or give a text
        its code."""
        float(t)  # a time is a number (TypeError, as the array would raise)
        if not 0 <= seat <= 255:
            raise ValueError(f"a seat is a number from 0 to 255, not {seat!r}")
        if text not in self._code_of:
            if len(self._texts) == 65_536:
                raise OverflowError("a log holds at most 65,536 different intents")
            self._code_of[text] = len(self._texts)
            self._texts.append(text)

    def _write(self) -> None:
        """The recent entries into the arrays (before any read)."""
        recent = self._recent
        if recent:
            n = len(recent)  # (an entry appended meanwhile, by another thread, stays)
            times, seats, texts = zip(*recent[:n], strict=True)
            self._times.extend(times)
            self._seats.extend(seats)
            self._codes.extend(map(self._code_of.__getitem__, texts))
            del recent[:n]

    def __len__(self) -> int:
        return len(self._times) + len(self._recent)

    def __iter__(self) -> Iterator[Entry]:
        self._write()
        texts = self._texts
        for t, seat, code in zip(self._times, self._seats, self._codes, strict=True):
            yield t, seat, texts[code]

    @overload
    def __getitem__(self, index: int) -> Entry: ...

    @overload
    def __getitem__(self, index: slice) -> list[Entry]: ...

    def __getitem__(self, index):
        self._write()
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return self._times[index], self._seats[index], self._texts[self._codes[index]]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, InputLog | list | tuple):
            return len(self) == len(other) and all(a == tuple(b) for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def __repr__(self) -> str:
        return f"InputLog({list(self)!r})"

    # --- the record: exact and compact -----------------------------------------------------
    def pack(self, start: float, end: float) -> bytes:
        """The log as a finished game's record keeps it, with the game's start and end:
        every time the exact double the engine saw (a replay must see the very same
        floats), compressed. ``InputLog.unpack`` reads it back."""
        self._write()
        return self._pack(self._times, self._seats, self._codes, start, end)

    def pack_part(self, first: int, last: int, start: float, end: float) -> bytes:
        """``InputLog(self[first:last]).pack(start, end)``, read back as the same entries,
        texts, without making them: the arrays' slices, with this log's whole short list of
        texts. What a running game's journal writes four times a second."""
        self._write()
        return self._pack(self._times[first:last], self._seats[first:last], self._codes[first:last], start, end)

    def _pack(self, times: array, seats: bytearray, codes: array, start: float, end: float) -> bytes:
        texts = json.dumps(self._texts, separators=(",", ":")).encode()
        body = b"".join([
            struct.pack("<ddII", start, end, len(times), len(texts)),
            texts,
            times.tobytes() if _LITTLE else _swapped(times),
            bytes(seats),
            codes.tobytes() if _LITTLE else _swapped(codes),
        ])
        return PACK_MAGIC + zlib.compress(body, 9)

    @classmethod
    def unpack(cls, data: bytes) -> tuple[InputLog, float, float]:
        """``(log, start, end)`` from ``pack``; ValueError if it is not one."""
        if not data.startswith(PACK_MAGIC):
            raise ValueError("not a packed input log")
        try:
            body = zlib.decompress(data[len(PACK_MAGIC):])
            start, end, n, text_bytes = struct.unpack_from("<ddII", body)
            at = struct.calcsize("<ddII")
            texts = json.loads(body[at:at + text_bytes])
            if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
                raise ValueError("its intents are not texts")
            at += text_bytes
            log = cls()
            log._times.frombytes(body[at:at + 8 * n])
            at += 8 * n
            log._seats.extend(body[at:at + n])
            at += n
            log._codes.frombytes(body[at:at + 2 * n])
            at += 2 * n
        except (zlib.error, struct.error, ValueError) as err:
            raise ValueError(f"a damaged input log: {err}") from None
        if not _LITTLE:
            log._times.byteswap()
            log._codes.byteswap()
        if at != len(body) or len(log._codes) != n or len(log._seats) != n or any(c >= len(texts) for c in log._codes):
            raise ValueError("a damaged input log")
        log._texts = texts
        log._code_of = {text: i for i, text in enumerate(log._texts)}
        return log, start, end


PACK_MAGIC = b"TWL1"
_LITTLE = array("H", [1]).tobytes() == b"\x01\x00"


def _swapped(values: array) -> bytes:
    copy = array(values.typecode, values)
    copy.byteswap()
    return copy.tobytes()


class Rows:
    """A log as a game's record keeps it, ``[seconds since start, seat, text]`` rows
    (times to 0.1 ms), made one at a time as they are read: a finished game hands this
    to the database's thread, not a list of thousands of small lists held meanwhile.
    ``scale``: the engine's clock ticks per second (1000 for one that counts ms)."""

    __slots__ = ("log", "start", "scale")

    def __init__(self, log: InputLog | Sequence[Entry], start: float, scale: int = 1) -> None:
        self.log = log
        self.start = start
        self.scale = scale

    def __len__(self) -> int:
        return len(self.log)

    def __iter__(self) -> Iterator[list]:
        start, scale = self.start, self.scale
        for t, seat, text in self.log:
            yield [round((t - start) / scale, 4), seat, text]
