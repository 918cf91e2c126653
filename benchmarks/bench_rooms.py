"""How long the server takes over each answer in a room, with many rooms playing at once.

The app of `diavolo serve` (`web.app.create_app`, uvicorn with the same
protocol settings as `web.server.serve`) listens on loopback in this process.
A second process runs the simulated players: --rooms rooms of --players
players each, every player one WebSocket (the `websockets` client), playing
whole games back to back for --seconds. A simulated player is bounded like a
person: it answers each roll once, after the roll's foreperiod plus a
reaction time drawn uniformly from 150 to 600 ms, with that reaction time as
its latency; it answers right with probability 0.8.

The figure is the server's handling time per answer: from the answer's
message received to the broadcast that follows it sent to every connection
of the room (`Room.answer`, kept in `Rooms.handling_ms`), in ms: median, 99th
percentile and maximum, against one display frame at 60 Hz (16.7 ms). The
server's event loop also serves every other room's rounds meanwhile, and
writes every answer to the drill log (fsynced, in a worker thread).

The machine may be shared: the load average is printed with the figures.

Usage: python benchmarks/bench_rooms.py [--rooms 20] [--players 6] [--seconds 30] [--seed 1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import numpy as np

FRAME_MS = 1000 / 60


def serve_in_thread(log: Path):
    """The app on a free loopback port, in a thread of this process; (app, server, port)."""
    import uvicorn

    from diavolo_stats.web.app import create_app
    from diavolo_stats.web.server import MAX_CONNECTIONS, REQUEST_TIMEOUT_S, TimedH11Protocol

    app = create_app(log)
    listener = socket.create_server(("127.0.0.1", 0))
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",
                            limit_concurrency=MAX_CONNECTIONS, http=TimedH11Protocol,
                            timeout_keep_alive=REQUEST_TIMEOUT_S)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[listener])), daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    return app, server, thread, listener.getsockname()[1]


def open_rooms(port: int, count: int) -> list[dict]:
    origin = f"http://127.0.0.1:{port}"
    body = json.dumps({"foreperiod_ms": [100, 200], "feedback_ms": 100}).encode()
    rooms = []
    for _ in range(count):
        request = urllib.request.Request(origin + "/api/rooms", data=body, method="POST",
                                         headers={"Origin": origin, "Content-Type": "application/json"})
        with urllib.request.urlopen(request) as answer:
            rooms.append(json.load(answer))
    return rooms


# ------------------------------------------------------------------------------------- the players

async def player(port: int, room: dict, index: int, players: int, until: float, rng: random.Random) -> int:
    """One simulated player; the answers it sent."""
    import websockets

    from diavolo_stats.core.rules import resolve
    from diavolo_stats.core.variant import Command, Variant

    variant = Variant()
    origin = f"http://127.0.0.1:{port}"
    sent = 0
    async with websockets.connect(f"ws://127.0.0.1:{port}/ws/rooms/{room['code']}", origin=origin) as ws:
        join = {"type": "join", "name": f"player {index + 1}"}
        if index == 0:
            join["host_key"] = room["host_key"]
        await ws.send(json.dumps(join))
        started = False
        while time.monotonic() < until:
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), max(until - time.monotonic(), 0.01)))
            except asyncio.TimeoutError:
                break
            kind = message["type"]
            if index == 0 and ((kind == "state" and len(message["seats"]) == players and not started)
                               or kind == "over"):
                started = True
                await ws.send(json.dumps({"type": "start", "again": kind == "over"}))
            elif kind == "roll" and index in message["seats_in"]:
                reaction_ms = rng.uniform(150, 600)
                await asyncio.sleep((message["foreperiod_ms"] + reaction_ms) / 1000)
                accepted = resolve(variant, Command(message["command"]), message["dice"],
                                   message["positions"]).accepted
                answer = accepted[0] if rng.random() < 0.8 else next(
                    a for a in ("black", "red", "white", "grey") if a not in accepted)
                await ws.send(json.dumps({"type": "answer", "round": message["round"], "answer": answer,
                                          "latency_ms": round(reaction_ms, 1),
                                          "timestamp": "2026-12-01T09:00:00Z"}))
                sent += 1
    return sent


async def all_players(port: int, rooms: list[dict], players: int, seconds: float, seed: int) -> int:
    until = time.monotonic() + seconds
    tasks = [player(port, room, index, players, until, random.Random(seed * 1000 + r * players + index))
             for r, room in enumerate(rooms) for index in range(players)]
    return sum(await asyncio.gather(*tasks))


def run_players() -> None:
    """The players' process: arguments as JSON on stdin, the answers sent on stdout."""
    job = json.loads(sys.stdin.read())
    print(asyncio.run(all_players(job["port"], job["rooms"], job["players"], job["seconds"], job["seed"])))


# ------------------------------------------------------------------------------------------- main

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rooms", type=int, default=20)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players-process", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.players_process:
        run_players()
        return
    with tempfile.TemporaryDirectory(prefix="bench-rooms-") as folder:
        log = Path(folder) / "drills.csv"
        app, server, thread, port = serve_in_thread(log)
        rooms = open_rooms(port, args.rooms)
        job = {"port": port, "rooms": rooms, "players": args.players, "seconds": args.seconds, "seed": args.seed}
        clients = subprocess.run([sys.executable, __file__, "--players-process"], input=json.dumps(job),
                                 capture_output=True, text=True, check=True)
        sent = int(clients.stdout.strip().splitlines()[-1])
        load = os.getloadavg()
        handled = np.array(app.state.rooms.handling_ms)
        server.should_exit = True
        thread.join(30)
        from diavolo_stats.drill.log import load_logs

        logged = len(load_logs([log]))
    print(f"rooms: {args.rooms} of {args.players} players on loopback for {args.seconds:g} s; "
          f"answers sent {sent}, handled {len(handled)}, logged {logged}")
    print(f"server handling time per answer (received to broadcast sent), ms: median {np.median(handled):.3f}, "
          f"p99 {np.percentile(handled, 99):.3f}, max {handled.max():.3f}; one 60 Hz frame is {FRAME_MS:.1f} ms: "
          f"p99 {'under' if np.percentile(handled, 99) < FRAME_MS else 'OVER'} it")
    print(f"load average (1, 5, 15 min): {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
