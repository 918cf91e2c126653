"""A game of Diavolo in the browser against modelled players: the server holds the game, the library referees it.

`SoloGames` keeps the games being played, each a `game.live.Table` with one human seat: each round it deals the
roll, gives the opponents' grabs to the page as their time comes (`grabs`, a long poll), logs the human's answer
and settles the round. How the opponents are made and games are kept: docs/architecture.md, "The Play page".
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
import threading
import time
import uuid
import warnings
from collections import OrderedDict
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from diavolo_stats.analytics.roll_weak_spots import fit_recent
from diavolo_stats.core.variant import Variant
from diavolo_stats.drill.log import PLAYER_NAME, missing_log_message
from diavolo_stats.drill.settings import answer_keys
from diavolo_stats.errors import InputError
from diavolo_stats.game.live import RESULT_MS, Table
from diavolo_stats.game.player_file import player_from_document
from diavolo_stats.game.players import PlayerModel
from diavolo_stats.game.reading_fit import ReadingFit
from diavolo_stats.game.settings import GameRules
from diavolo_stats.game.specs import Player, player_from_spec
from diavolo_stats.names import looks_alike
from diavolo_stats.toml_files import parse_toml
from diavolo_stats.validation import Maybe, Number, Record, Rule, Whole
from diavolo_stats.web.bodies import JSONAnswer, parse_body
from diavolo_stats.web.busy import Busy, Heavy
from diavolo_stats.web.game_form import GAME_DEFAULTS, GAME_FIELDS, game_form
from diavolo_stats.web.templating import templates
from diavolo_stats.web.trials import (
    ANSWER_NAME,
    MAX_LATENCY_MS,
    Moment,
    TrialStore,
    drawn_game,
    drilled_variant,
)

HUMAN = 0
"""The human's seat; the opponents sit at 1 to MAX_OPPONENTS."""
MAX_OPPONENTS = 5
MAX_GAMES_HELD = 200
"""Games kept in memory at once. A new game past it takes the place of one that is over or left alone for
ABANDONED_S (the one left alone longest), never of a game in progress: with none, it waits (503)."""
MAX_GAMES_PER_ADDRESS = 4
"""Games one client address holds at once; its next game takes the place of its own left alone longest."""
ABANDONED_S = 30 * 60
"""A game the page has not asked about for this long (s) is abandoned: another game may take its place."""
PLAYER_PRESETS = ("novice", "average", "expert")
MAX_PLAYER_FILE_BYTES = 16 * 1024
_FILE_STEM = re.compile(r"[A-Za-z0-9][A-Za-z0-9 _.-]{0,59}")


@dataclasses.dataclass(frozen=True)
class Opponent(Rule):
    """One opponent: `preset:NAME`, the name of a player in the drill log, or a player file the page read,
    as an object {"file": its name, "toml": its text} (`player_file.read_player`'s keys)."""

    def normalize(self, value: Any) -> Any:
        if isinstance(value, str):
            if value.startswith("preset:") and value[len("preset:"):] not in PLAYER_PRESETS:
                raise ValueError(f"unknown preset; allowed: {', '.join('preset:' + p for p in PLAYER_PRESETS)}")
            return value if value.startswith("preset:") else PLAYER_NAME.normalize(value)
        if isinstance(value, Mapping) and set(value) == {"file", "toml"} and all(
                isinstance(v, str) for v in value.values()):
            if not _FILE_STEM.fullmatch(value["file"]) or not value["file"].lower().endswith(".toml"):
                raise ValueError("a player file's name is letters, digits, spaces, _ . - and ends in .toml")
            if len(value["toml"].encode("utf-8")) > MAX_PLAYER_FILE_BYTES:
                raise ValueError(f"a player file has at most {MAX_PLAYER_FILE_BYTES} bytes")
            return dict(value)
        raise ValueError('must be "preset:NAME", a drill log player\'s name, or {"file": NAME, "toml": TEXT}')

    def bad_values(self) -> list[Any]:
        return ["preset:genius", "", 5, None, {"file": "a.txt", "toml": ""}, {"file": "../a.toml", "toml": ""}]


@dataclasses.dataclass(frozen=True)
class Opponents(Rule):
    """1 to MAX_OPPONENTS opponents, each as `Opponent` says."""

    def normalize(self, value: Any) -> list:
        if not isinstance(value, list) or not 1 <= len(value) <= MAX_OPPONENTS:
            raise ValueError(f"must be a list of 1 to {MAX_OPPONENTS} opponents")
        return [Opponent().normalize(item) for item in value]

    def bad_values(self) -> list[Any]:
        return [[], ["preset:average"] * (MAX_OPPONENTS + 1), "preset:average", None, ["preset:genius"]]


NEW_GAME = Record("game", {"player": PLAYER_NAME, "opponents": Opponents(), **GAME_FIELDS}, defaults=GAME_DEFAULTS)
"""What the page sends to start a game: the human's name and the opponents; the game (a preset, or SERVED: the
server's variant file), its readings, the range of the wait before each roll and the seconds to answer one (the
drill's by default)."""

HUMAN_ANSWER = Record("answer", {
    "round": Whole(1, 10**6),
    "answer": Maybe(ANSWER_NAME),
    "latency_ms": Maybe(Number(at_least=0, at_most=MAX_LATENCY_MS, unit="ms")),
    "timestamp": Moment(),
})
"""The human's grab in a round: the answer (null: none within the time) and its latency, timed by the page."""

GRABS = Record("grabs", {"round": Whole(1, 10**6), "known": Whole(0, MAX_OPPONENTS)}, defaults={"known": 0})
"""The page asks for the opponents' grabs on a round once it knows `known` of them."""
MAX_GRABS_WAIT_S = 5.0
"""The longest a request for the opponents' grabs waits for the next one, s (the page asks again)."""


@dataclasses.dataclass
class SoloGame:
    """One game: its table (the human at seat 0, the opponents' models at the others) and its notes."""

    id: str
    variant_name: str
    table: Table
    notes: list[str]
    timeout_s: float  # the page's window to answer a roll, from when it painted the dice
    address: str = ""  # the client's that started it
    seen: float = 0.0  # when the page last asked about it (the games' clock)
    record: dict | None = None  # the round the human answered last, as answered
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)

    def document(self) -> dict:
        """The game for the page: seats, gems, readings, the round log, and the engine's check once over; what
        the page draws its rolls with (`trials.drawn_game`) and the answer keys."""
        table = self.table
        game = table.referee.document()
        game |= {"id": self.id, "variant": self.variant_name, **drawn_game(table.variant),
                 "keys": answer_keys(table.variant, {}), "notes": self.notes, "timeout_s": self.timeout_s,
                 "feedback_ms": RESULT_MS, "human": 0}
        if table.over:
            game["engine_check"] = table.engine_check()
        return game


class SoloGames:
    """The games being played on this server, their human answers logged through `store`; `clock` times the
    answers (seconds, monotonic); `held`: the game the server holds (a variant file), played as SERVED."""

    def __init__(self, store: TrialStore, clock: Callable[[], float] = time.monotonic, held: Variant | None = None):
        self.store, self.clock, self.held = store, clock, held
        self._games: OrderedDict[str, SoloGame] = OrderedDict()
        self._lock = threading.Lock()
        self._fit: tuple[Any, ReadingFit] | None = None  # the store's latest answers it was fitted on, the fit
        self._fitting = threading.Lock()  # one fit at a time: games that wait for it on the same log reuse it

    def new_game(self, body: object, address: str = "") -> dict:
        """Start a game from the page's setup (`NEW_GAME`) for the client at `address`; the game's document.
        Busy when the server holds MAX_GAMES_HELD games in progress."""
        asked = NEW_GAME.check(body)
        models, notes = self._opponents(asked["opponents"])
        sequence = np.random.SeedSequence()
        seed = int(sequence.entropy) % 2**63
        table = Table(drilled_variant(asked["variant"], self.held), GameRules(end=asked["end"], devils=asked["devils"]),
                      asked["foreperiod_ms"], np.random.default_rng(sequence), self.store.add, seed=seed,
                      clock=self.clock)
        table.join(asked["player"])
        for name, model in zip(_seat_names(asked["player"], [model.name for model in models]), models):
            table.join(name, model)
        table.start()
        game = SoloGame(id=str(uuid.uuid4()), variant_name=asked["variant"], table=table, notes=notes,
                        timeout_s=asked["timeout_s"], address=address, seen=self.clock())
        table.seats[HUMAN].session_id = game.id  # the human's rows: the game's id, as the page knows it
        with self._lock:
            self._make_room(address)
            self._games[game.id] = game
        return game.document()

    def _make_room(self, address: str) -> None:
        """Drop what a new game of `address` takes the place of: its own game left alone longest when it holds
        MAX_GAMES_PER_ADDRESS, then, with the server full, the game over or abandoned left alone longest; Busy
        when every game held is in progress. The games are in the order they were last asked about."""
        mine = [key for key, held in self._games.items() if held.address == address]
        if len(mine) >= MAX_GAMES_PER_ADDRESS:
            del self._games[mine[0]]
        if len(self._games) >= MAX_GAMES_HELD:
            now = self.clock()
            done = next((key for key, held in self._games.items()
                         if held.table.over or now - held.seen > ABANDONED_S), None)
            if done is None:
                raise Busy(f"busy: the server holds its {MAX_GAMES_HELD} games in progress; start yours in a "
                           "moment")
            del self._games[done]

    def game(self, game_id: str) -> SoloGame:
        with self._lock:
            game = self._games.get(game_id)
            if game is None:
                raise InputError("no such game on this server (it ended, or the server restarted): start another",
                                 field="game")
            self._games.move_to_end(game_id)
            game.seen = self.clock()
            return game

    def next_round(self, game_id: str) -> dict:
        """The round on the table: the roll and its foreperiod, not the opponents' grabs (`grabs` gives them as
        they happen); the same round until the human answers it (a reloaded page gets it again, and is timed
        from when it was first sent)."""
        game = self.game(game_id)
        with game.lock:
            if game.table.over:
                raise InputError("the game is over", field="round")
            if game.table.deal is None:
                game.table.deal_next()
            return game.table.send(HUMAN)

    def grabs(self, game_id: str, body: object) -> tuple[dict | None, float | None]:
        """The opponents' grabs on round `round` that have happened, the devils left and whether more grabs are to
        come: (that reply, None) once more than `known` grabs happened, the round is no longer on the table or
        no grab is left to come; else (None, seconds until the next one is due)."""
        asked = GRABS.check(body)
        game = self.game(game_id)
        with game.lock:
            table = game.table
            on = table.deal is not None and table.number == asked["round"]
            at = self.clock()
            revealed = table.revealed(at) if on else []
            wait_s = table.next_reveal_s(at) if on else None
            if len(revealed) <= asked["known"] and wait_s is not None:
                return None, min(wait_s, MAX_GRABS_WAIT_S)
            _, held = table.holding(at)
            return {"round": asked["round"], "on_table": on, "more": wait_s is not None,
                    "devils_left": table.devils_left(at),
                    "grabs": [grab.as_dict() | {"got": held[grab.seat] is not None} for grab in revealed]}, None

    def answer(self, game_id: str, body: object, at: float | None = None) -> dict:
        """Referee the round the human answered (received at `at`, the clock's; now when None), log their
        answer, and (if they are out) play the rest of the game; the round's record and the game's document."""
        asked = HUMAN_ANSWER.check(body)
        game = self.game(game_id)
        with game.lock:
            table = game.table
            if table.deal is None and game.record is not None and game.record["number"] == asked["round"]:
                return {"round": game.record, "game": game.document()}  # sent again: the same answer
            latency_ms = asked["latency_ms"]
            table.answer(HUMAN, asked["round"], asked["answer"],
                         None if latency_ms is None else round(float(latency_ms), 1), asked["timestamp"], at)
            table.settle()
            game.record = table.round_document() | {"devils_left": table.devils_left()}
            if not table.over and table.gems()[HUMAN] == 0:
                table.play_out()  # the human is out: the models play on
            return {"round": game.record, "game": game.document()}

    def _opponents(self, specs: list) -> tuple[list[Player], list[str]]:
        fit = None
        models, notes = [], []
        for spec in specs:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                if isinstance(spec, dict):
                    models.append(_from_file(spec))
                else:
                    if not spec.startswith("preset:") and fit is None:
                        fit = self.log_fit()
                    try:
                        models.append(player_from_spec(spec, fit))
                    except InputError as error:  # the command line's --players is the page's opponents
                        raise InputError(error.message, field="opponents") from None
            notes += [str(warning.message) for warning in caught]
        return models, notes


    def log_fit(self) -> ReadingFit:
        """Every player of the drill log fitted on their most recent answers (`roll_weak_spots.fit_recent`), found
        by the store (`TrialStore.latest_answers`: the log read once, then its new rows): fitted again only once
        the log has new rows, one fit at a time. Heavy work: the page's route runs it within the server's bound
        (`busy.Heavy`)."""
        missing = InputError(missing_log_message(self.store.log.path, "use preset:novice|average|expert players"),
                             field="opponents")
        if not self.store.log.path.is_file():
            raise missing
        latest = self.store.latest_answers()
        if latest.empty:
            raise missing
        with self._fitting:
            known = self._fit
            if known is None or known[0] is not latest:
                known = self._fit = (latest, fit_recent(latest))
            return known[1]


def needs_the_log(body: object) -> bool:
    """Whether a game's setup names an opponent from the drill log (whose fit is heavy work)."""
    opponents = body.get("opponents") if isinstance(body, dict) else None
    return isinstance(opponents, list) and any(isinstance(spec, str) and not spec.startswith("preset:")
                                               for spec in opponents)


def _seat_names(human: str, names: list[str]) -> list[str]:
    """Opponents' names, numbered where a name looks like one already at the table (`names.looks_alike`): `average`,
    `average 2`."""
    taken = [human]
    for name in names:
        seat, number = name, 1
        while any(looks_alike(seat, other) for other in taken):
            number += 1
            seat = f"{name} {number}"
        taken.append(seat)
    return taken[1:]


def _from_file(spec: dict) -> PlayerModel:
    """A player file the page sent, read as `player_file.read_player` reads one, under its own name."""
    try:
        return player_from_document(parse_toml(spec["toml"], spec["file"]), Path(spec["file"]).stem)
    except InputError as error:
        message = error.message if error.message.startswith(spec["file"]) else f"{spec['file']}: {error}"
        raise InputError(message, field="opponents") from None


def routes(games: SoloGames, heavy: Heavy) -> list[Route]:
    """The Play page and its API: start a game (within `heavy`'s bound when an opponent is fitted from the drill
    log), the round on the table, the human's answer."""

    async def page(request: Request) -> Response:
        players = await run_in_threadpool(games.store.players)
        return templates.TemplateResponse(request, "play.html", {
            **game_form(games.held), "presets": PLAYER_PRESETS, "players": players, "max_opponents": MAX_OPPONENTS,
            "log": games.store.log.path})

    async def new_game(request: Request) -> JSONAnswer:
        body = await _json(request)
        address = request.client.host if request.client else ""
        if needs_the_log(body):
            game = await heavy.run("a game against players of the drill log", games.new_game, body, address)
        else:
            game = await run_in_threadpool(games.new_game, body, address)
        return JSONAnswer(game, status_code=201)

    async def get_game(request: Request) -> JSONAnswer:
        return JSONAnswer(games.game(request.path_params["game"]).document())

    async def next_round(request: Request) -> JSONAnswer:
        return JSONAnswer(await run_in_threadpool(games.next_round, request.path_params["game"]))

    async def grabs(request: Request) -> JSONAnswer:
        body = await _json(request)
        while True:
            reply, wait_s = await run_in_threadpool(games.grabs, request.path_params["game"], body)
            if reply is not None:
                return JSONAnswer(reply)
            await asyncio.sleep(wait_s)

    async def answer(request: Request) -> JSONAnswer:
        at = games.clock()  # when the answer came: the table compares its latency with the time that passed
        body = await _json(request)
        return JSONAnswer(await run_in_threadpool(games.answer, request.path_params["game"], body, at))

    return [Route("/play", page), Route("/api/play/games", new_game, methods=["POST"]),
            Route("/api/play/games/{game}", get_game),
            Route("/api/play/games/{game}/round", next_round, methods=["POST"]),
            Route("/api/play/games/{game}/grabs", grabs, methods=["POST"]),
            Route("/api/play/games/{game}/answer", answer, methods=["POST"])]


async def _json(request: Request) -> object:
    return parse_body(await request.body(), "body")
