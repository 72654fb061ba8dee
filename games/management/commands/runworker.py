"""``manage.py runworker game-host-0 game-host-1 …``: channels' worker, plus what a
table host needs around it: reconcile the shards' games left running by an earlier
worker, then beat their heartbeat so Daphne processes know they are alive."""

from __future__ import annotations

from channels.management.commands.runworker import Command as ChannelsRunworker
from channels.worker import Worker

from games.host import GameHostWorker


class TableHostWorker(GameHostWorker, Worker):
    pass


class Command(ChannelsRunworker):
    worker_class = TableHostWorker
