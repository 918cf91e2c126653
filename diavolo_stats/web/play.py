"""A game of Diavolo in the browser against modelled players: the server holds the game, the library referees it.

`SoloGames` keeps the games being played (at most MAX_GAMES_HELD; the
oldest is dropped past that). A game has one human seat (seat 0) and 1 to 5
opponents, each a modelled player (`specs.Player`) reading every roll by its
features: a preset, a player file sent by the page, or a player of the drill
log fitted from their answers. Each round the
server throws the dice (`rules.roll`), resolves them and draws every
opponent's grab from their model for this roll (`referee.modelled_grabs`),
before the page shows the roll: the page plays the opponents' grabs out at
their times, as hands reaching across the table. The human's answer comes
back with its latency, timed by the page from the frame that painted the
roll (as the drill times it); the round is then refereed by
`referee.Referee`, and the human's answer is written to the drill log
through the drill's own gate (`drill.trial.judged_trial`, `interface`
`game`, the game's id as `session_id`, the round as `trial`) and writer
(`TrialStore`: fsynced, each round once).

An answer faster than MIN_ANSWER_MS grabs no devil: no person reads a roll
that fast, so it was pressed before the roll was seen (it is still logged,
as given). A human with no gems left watches the rest of the game played at
once by the models. A finished game carries `engine_check`: its round log
replayed through the vectorized engine (`referee.engine_mismatches`).
"""

from __future__ import annotations

import dataclasses
import re
import tempfile
import threading
import uuid
import warnings
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from diavolo_stats.core.rules import resolve, roll
from diavolo_stats.core.variant import GREY, Variant
from diavolo_stats.drill import MIN_LATENCY_MS
from diavolo_stats.drill.log import NO_ANSWER, PLAYER_NAME, load_logs
from diavolo_stats.drill.roll_features import played_features
from diavolo_stats.drill.settings import FEEDBACK_MS, FOREPERIOD_MS, TIMEOUT_S, answer_keys
from diavolo_stats.drill.trial import judged_trial
from diavolo_stats.errors import InputError
from diavolo_stats.game.player_file import read_player
from diavolo_stats.game.players import PlayerModel
from diavolo_stats.game.referee import Grab, Referee, engine_mismatches, modelled_grabs
from diavolo_stats.game.settings import DEVILS, EndRule, EndRuleName, GameRules
from diavolo_stats.game.specs import Player, fit_log, player_from_spec
from diavolo_stats.validation import Maybe, Number, OneOf, Record, Rule, Whole
from diavolo_stats.web.api import Foreperiod
from diavolo_stats.web.pages import templates
from diavolo_stats.web.trials import BROWSER_VARIANTS, MAX_LATENCY_MS, Moment, TrialStore

GAME_INTERFACE = "game"
"""The `interface` of the drill log rows a game writes: the human's answers in a game, not in the drill."""
MIN_ANSWER_MS = MIN_LATENCY_MS
"""An answer faster than this grabs nothing: 100 ms is below any visual choice reaction (`drill.MIN_LATENCY_MS`)."""
MAX_OPPONENTS = 5
MAX_GAMES_HELD = 200
"""Games kept in memory at once; past that the one left alone longest is dropped."""
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


NEW_GAME = Record("game", {
    "player": PLAYER_NAME,
    "opponents": Opponents(),
    "variant": OneOf(BROWSER_VARIANTS),
    "devils": OneOf(DEVILS),
    "end": EndRuleName(),
    "foreperiod_ms": Foreperiod(),
}, defaults={"variant": "standard", "devils": "rulebook", "end": EndRule.LAST_STANDING,
             "foreperiod_ms": FOREPERIOD_MS})
"""What the page sends to start a game: the human's name and the opponents; the game, its readings, and the
range of the wait before each roll (the drill's by default)."""

HUMAN_ANSWER = Record("answer", {
    "round": Whole(1, 10**6),
    "answer": Maybe(OneOf((*dict.fromkeys(c for v in BROWSER_VARIANTS for c in Variant.preset(v).colors), GREY))),
    "latency_ms": Maybe(Number(at_least=0, at_most=MAX_LATENCY_MS, unit="ms")),
    "timestamp": Moment(),
})
"""The human's grab in a round: the answer (null: none within the time) and its latency, timed by the page."""


@dataclasses.dataclass
class _Round:
    number: int
    thrown: Any  # rules.Roll
    resolution: Any  # rules.Resolution
    foreperiod_ms: int
    grabs: list[Grab]
    record: dict | None = None


@dataclasses.dataclass
class SoloGame:
    """One game: its referee, the opponents' models, the dice's generator and the round on the table."""

    id: str
    variant_name: str
    models: list[Player]
    referee: Referee
    rng: np.random.Generator
    seed: int
    notes: list[str]
    foreperiod_ms: tuple[int, int]
    current: _Round | None = None
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)

    @property
    def variant(self) -> Variant:
        return Variant.preset(self.variant_name)

    def document(self) -> dict:
        """The game for the page: seats, gems, readings, the round log, and the engine's check once over."""
        game = self.referee.document()
        game |= {"id": self.id, "variant": self.variant_name, "game": self.variant.as_dict(), "notes": self.notes,
                 "timeout_s": TIMEOUT_S, "feedback_ms": FEEDBACK_MS, "human": 0}
        if self.referee.over:
            mismatches = engine_mismatches(self.referee.colors, self.referee.rounds, self.referee.rules)
            game["engine_check"] = {"rounds": len(self.referee.rounds), "mismatches": mismatches}
        return game


class SoloGames:
    """The games being played on this server, their human answers logged through `store`."""

    def __init__(self, store: TrialStore):
        self.store = store
        self._games: OrderedDict[str, SoloGame] = OrderedDict()
        self._lock = threading.Lock()

    def new_game(self, body: object) -> dict:
        """Start a game from the page's setup (`NEW_GAME`); the game's document."""
        asked = NEW_GAME.check(body)
        models, notes = self._opponents(asked["opponents"])
        variant = Variant.preset(asked["variant"])
        names = (asked["player"], *_seat_names([model.name for model in models]))
        rules = GameRules(end=asked["end"], devils=asked["devils"])
        sequence = np.random.SeedSequence()
        game = SoloGame(id=str(uuid.uuid4()), variant_name=asked["variant"], models=models,
                        referee=Referee(names=names, colors=variant.colors, rules=rules),
                        rng=np.random.default_rng(sequence), seed=int(sequence.entropy) % 2**63, notes=notes,
                        foreperiod_ms=asked["foreperiod_ms"])
        with self._lock:
            self._games[game.id] = game
            while len(self._games) > MAX_GAMES_HELD:
                self._games.popitem(last=False)
        return game.document()

    def game(self, game_id: str) -> SoloGame:
        with self._lock:
            game = self._games.get(game_id)
            if game is None:
                raise InputError("no such game on this server (it ended, or the server restarted): start another",
                                 field="game")
            self._games.move_to_end(game_id)
            return game

    def next_round(self, game_id: str) -> dict:
        """The round on the table: the roll, its foreperiod and the opponents' grabs; the same round until the
        human answers it (a reloaded page gets it again)."""
        game = self.game(game_id)
        with game.lock:
            if game.referee.over:
                raise InputError("the game is over", field="round")
            if game.current is None or game.current.record is not None:
                game.current = _throw(game, len(game.referee.rounds) + 1)
            current = game.current
            return {"round": current.number, "command": current.thrown.command.value,
                    "dice": {color: list(values) for color, values in current.thrown.dice.items()},
                    "positions": current.thrown.positions, "foreperiod_ms": current.foreperiod_ms,
                    "devils_per_color": game.referee.devils(), "seats_in": list(game.referee.seats_in),
                    "opponents": [grab.as_dict() for grab in current.grabs]}

    def answer(self, game_id: str, body: object) -> dict:
        """Referee the round the human answered, log their answer, and (if they are out) play the rest of the
        game; the round's record and the game's document."""
        asked = HUMAN_ANSWER.check(body)
        game = self.game(game_id)
        with game.lock:
            current = game.current
            if current is not None and current.record is not None and current.number == asked["round"]:
                return {"round": current.record, "game": game.document()}  # sent again: the same answer
            if current is None or current.number != asked["round"]:
                raise InputError(f"round {asked['round']} is not on the table", field="round")
            answer, latency_ms = asked["answer"], asked["latency_ms"]
            if (answer is None) != (latency_ms is None):
                raise InputError("an answer needs its latency, and no answer has none", field="latency_ms")
            if answer is not None and answer not in (*game.variant.colors, GREY):
                raise InputError(f"must be one of {', '.join((*game.variant.colors, GREY))}", field="answer")
            latency_ms = None if latency_ms is None else round(float(latency_ms), 1)
            row = judged_trial(
                game.variant, current.thrown.command, current.thrown.dice, current.thrown.positions,
                answer if answer is not None else NO_ANSWER, latency_ms, interface=GAME_INTERFACE,
                player=game.referee.names[0], session_id=game.id, trial=current.number,
                timestamp=asked["timestamp"], foreperiod_ms=float(current.foreperiod_ms), seed=game.seed)
            self.store.add(row)
            counted = answer is not None and latency_ms >= MIN_ANSWER_MS
            human = Grab(0, answer if counted else None, latency_ms if counted else None)
            current.record = _referee(game, current, [human, *current.grabs])
            record = current.record
            if not game.referee.over and game.referee.gems[0] == 0:
                while not game.referee.over:  # the human is out: the models play on
                    _referee(game, _throw(game, len(game.referee.rounds) + 1), None)
            return {"round": record, "game": game.document()}

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
                        fit = fit_log(self.store.log.path)  # every player of the log, fitted once
                    models.append(player_from_spec(spec, fit))
            notes += [str(warning.message) for warning in caught]
        return models, notes


def _seat_names(names: list[str]) -> list[str]:
    """Opponents' names, numbered where one name sits twice (`average`, `average 2`)."""
    seen: dict[str, int] = {}
    shown = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        shown.append(name if seen[name] == 1 else f"{name} {seen[name]}")
    return shown


def _from_file(spec: dict) -> PlayerModel:
    """A player file the page sent, read by `player_file.read_player` under its own name."""
    with tempfile.TemporaryDirectory(prefix="diavolo-player-") as folder:
        path = Path(folder) / spec["file"]
        path.write_text(spec["toml"], encoding="utf-8")
        try:
            return read_player(path)
        except InputError as error:
            raise InputError(error.message.replace(str(path), spec["file"]), field="opponents") from None


def _throw(game: SoloGame, number: int) -> _Round:
    thrown = roll(game.variant, game.rng)
    resolution = resolve(game.variant, thrown.command, thrown.dice, thrown.positions)
    shortest, longest = game.foreperiod_ms
    foreperiod_ms = int(game.rng.integers(shortest, longest + 1))
    seats = [seat for seat in game.referee.seats_in if seat > 0]
    grabs = modelled_grabs([game.models[seat - 1] for seat in seats], seats, thrown.command, resolution.accepted,
                           game.variant.colors, game.rng, features=played_features(game.variant, [thrown]))
    return _Round(number, thrown, resolution, foreperiod_ms, grabs)


def _referee(game: SoloGame, current: _Round, grabs: list[Grab] | None) -> dict:
    record = game.referee.play(current.thrown.command.value, current.resolution.accepted, current.resolution.reason,
                               current.grabs if grabs is None else grabs)
    return record.as_dict() | {"dice": {c: list(v) for c, v in current.thrown.dice.items()}}



def routes(games: SoloGames) -> list[Route]:
    """The Play page and its API: start a game, the round on the table, the human's answer."""

    async def page(request: Request) -> Response:
        keys = answer_keys(Variant(), {})
        players = await run_in_threadpool(_log_players, games.store.log.path)
        return templates.TemplateResponse(request, "play.html", {
            "variants": BROWSER_VARIANTS, "keys": keys, "presets": PLAYER_PRESETS, "players": players,
            "max_opponents": MAX_OPPONENTS, "devils": DEVILS, "ends": [end.value for end in EndRule],
            "log": games.store.log.path})

    async def new_game(request: Request) -> JSONResponse:
        body = await _json(request)
        return JSONResponse(await run_in_threadpool(games.new_game, body), status_code=201)

    async def get_game(request: Request) -> JSONResponse:
        return JSONResponse(games.game(request.path_params["game"]).document())

    async def next_round(request: Request) -> JSONResponse:
        return JSONResponse(await run_in_threadpool(games.next_round, request.path_params["game"]))

    async def answer(request: Request) -> JSONResponse:
        body = await _json(request)
        return JSONResponse(await run_in_threadpool(games.answer, request.path_params["game"], body))

    return [Route("/play", page), Route("/api/play/games", new_game, methods=["POST"]),
            Route("/api/play/games/{game}", get_game),
            Route("/api/play/games/{game}/round", next_round, methods=["POST"]),
            Route("/api/play/games/{game}/answer", answer, methods=["POST"])]


async def _json(request: Request) -> object:
    try:
        return await request.json()
    except ValueError:
        raise InputError("the body must be one JSON object", field="body") from None


def _log_players(log: Path) -> list[str]:
    """The players of the drill log, to race their fitted selves (none when there is no log yet)."""
    if not log.is_file():
        return []
    frame = load_logs([log], columns=("player",))
    return sorted(frame["player"].astype(str).unique())
