"""Points for a round, and the score sheet of a whole game.

The points per player per round are the rules page's (docs/rules.md, "Scoring, per player per round"), with
the readings the sources leave open as `Rules` options (`wrong_bid`, `mermaid_bonus`). How a sheet is checked:
docs/architecture.md, "Minodice score sheets".
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from diavolo_stats.errors import InputError, about
from diavolo_stats.files import not_a_file
from diavolo_stats.minodice.options import MAX_PLAYERS, MERMAID_COLUMNS, MIN_PLAYERS, Rules, rounds_for_players
from diavolo_stats.results import NotedRows, counted

POINTS_PER_TRICK_BID = 20
POINTS_PER_TRICK_MISSED = -10
POINTS_PER_ROUND_ZERO_BID = 10
POINTS_PER_GRIFFIN_BEATEN = 30
POINTS_PER_MERMAID_BONUS = 50

BASE_COLUMNS = ("round", "player", "bid", "tricks", "griffins_beaten")


def sheet_columns(rules: Rules = Rules()) -> tuple[str, ...]:
    """The columns of a score sheet under `rules`: the base ones and the count the mermaid bonus needs."""
    return BASE_COLUMNS + (rules.mermaid_column,)


def score_round(bid, tricks, round_number, griffins_beaten=0, mermaid_count=0, rules: Rules = Rules()):
    """Points one player scores in one round: an int, or an int64 array of the arguments' broadcast shape.

    mermaid_count: what the mermaid bonus pays +50 for under `rules.mermaid_bonus`: tricks
    the mermaid won against one or more minotaurs ("per-trick"), or minotaurs beaten.
    Every count may be an int or an array of whole numbers of 0 or more.
    """
    # bid, tricks, round_number, griffins_beaten, mermaid_count: broadcastable int arrays
    values = {"bid": bid, "tricks": tricks, "round_number": round_number,
              "griffins_beaten": griffins_beaten, rules.mermaid_column: mermaid_count}
    for name, value in values.items():
        if np.any(np.asarray(value) < 0):
            raise InputError(f"must be 0 or more, got {value!r}", field=name)
    bid, tricks, round_number, griffins_beaten, mermaid_count = (
        np.asarray(value, dtype=np.int64) for value in values.values())
    met = bid == tricks
    zero_bid = np.where(met, POINTS_PER_ROUND_ZERO_BID, -POINTS_PER_ROUND_ZERO_BID) * round_number
    missed_by = np.abs(bid - tricks) if rules.wrong_bid == "per-trick" else np.int64(1)
    other_bid = np.where(met, POINTS_PER_TRICK_BID * bid, POINTS_PER_TRICK_MISSED * missed_by)
    bonus = POINTS_PER_GRIFFIN_BEATEN * griffins_beaten + POINTS_PER_MERMAID_BONUS * mermaid_count
    points = np.where(bid == 0, zero_bid, other_bid) + np.where(met, bonus, 0)
    return int(points) if points.ndim == 0 else points


@dataclass(frozen=True)
class SheetRow:
    """One row of a score sheet, with the line of the file it came from (the header is line 1).

    mermaid_count: the sheet's last column, `mermaid_tricks` or `minotaurs_beaten` (see `sheet_columns`).
    """

    line: int
    round: int
    player: str
    bid: int
    tricks: int
    griffins_beaten: int
    mermaid_count: int


def read_score_sheet(path: str | Path, rules: Rules = Rules()) -> tuple[SheetRow, ...]:
    """The rows of a score sheet CSV, each value checked for type; InputError naming the file and line.

    The columns are `sheet_columns(rules)`; a sheet written for the other mermaid reading is
    refused with an error naming the column it lacks.
    """
    columns = sheet_columns(rules)
    problem = not_a_file(path)  # a FIFO would hold the open until something writes to it
    if problem is not None:
        raise InputError(problem)
    try:
        with open(path, newline="", encoding="utf-8-sig") as file:  # a BOM from spreadsheets is fine
            reader = csv.DictReader(file)
            header = [name.strip() for name in reader.fieldnames or ()]
            missing = [column for column in columns if column not in header]
            unknown = [column for column in header if column not in columns]
            if missing or unknown:
                problem = f"missing column {missing[0]!r}" if missing else f"unknown column {unknown[0]!r}"
                raise InputError(f"{path}: {problem}; the columns are {', '.join(columns)}"
                                 f"{_other_reading(rules, header)}")
            # A spreadsheet saves blank lines below the table as `,,,,,` rows: skipped, like blank lines.
            rows = [_sheet_row(path, reader.line_num, raw, columns) for raw in reader if not _is_empty(raw)]
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise InputError(f"{path}: cannot read it ({getattr(error, 'strerror', None) or error})") from None
    if not rows:
        raise InputError(f"{path}: the sheet has no rows")
    return tuple(rows)


def _other_reading(rules: Rules, header: list[str]) -> str:
    """A hint when the sheet records the count of the other mermaid-bonus reading."""
    for reading, column in MERMAID_COLUMNS.items():
        if reading != rules.mermaid_bonus and column in header and rules.mermaid_column not in header:
            return f" ({column} is the count of the {reading} mermaid bonus)"
    return ""


def _is_empty(raw: dict[str | None, str | list[str] | None]) -> bool:
    """Whether a sheet row holds nothing but empty cells (extra cells, which DictReader lists, included)."""
    cells = [cell for value in raw.values() for cell in (value if isinstance(value, list) else [value])]
    return all(cell is None or not cell.strip() for cell in cells)


def _sheet_row(path: str | Path, line: int, raw: dict[str | None, str | None], columns: tuple[str, ...]) -> SheetRow:
    # csv.DictReader files extra values under the key None and fills missing ones with None.
    if None in raw or None in raw.values():
        raise InputError(f"{path} line {line}: expected {len(columns)} values ({', '.join(columns)})")
    raw = {key.strip(): value for key, value in raw.items()}
    player = raw["player"].strip()
    if not player:
        raise InputError(f"{path} line {line}: player is empty")
    numbers = []
    for column in columns:
        if column == "player":
            continue
        text = raw[column].strip()
        minimum = 1 if column == "round" else 0
        number = _whole_number(text)
        if number is None or number < minimum:
            raise InputError(f"{path} line {line}: {column} must be a whole number of {minimum} or more, got {text!r}")
        numbers.append(number)
    round_number, bid, tricks, griffins_beaten, mermaid_count = numbers
    return SheetRow(line=line, round=round_number, player=player, bid=bid, tricks=tricks,
                    griffins_beaten=griffins_beaten, mermaid_count=mermaid_count)


def _whole_number(text: str) -> int | None:
    """The number `text` writes in ASCII digits, else None (str.isdigit() also passes '²', which int() refuses)."""
    if not (text.isascii() and text.isdigit()):
        return None
    try:
        return int(text)
    except ValueError:  # more digits than Python converts (4300); far beyond any count on a sheet
        return None


@dataclass(frozen=True)
class ScoredRow:
    """A sheet row with the points it scores (`score`) and the player's running total after it (`total`)."""

    row: SheetRow
    score: int
    total: int


@dataclass(frozen=True)
class GameScore(NotedRows):
    """A checked, scored game.

    players: in order of first appearance on the sheet.
    scored_rows: every row, by round then player, with points and running totals.
    totals: each player's points after the last round on the sheet.
    winners: every player with the most points (players can share first place); on a
        sheet that stops before the last round, whoever leads so far.
    rounds_played / rounds_in_game: the sheet may stop before the last round.
    """

    players: tuple[str, ...]
    scored_rows: tuple[ScoredRow, ...]
    totals: dict[str, int]
    winners: tuple[str, ...]
    rounds_played: int
    rounds_in_game: int
    rules: Rules = field(default_factory=Rules)

    @property
    def columns(self) -> tuple[str, ...]:
        return sheet_columns(self.rules) + ("score", "total")

    @property
    def text_columns(self) -> tuple[str, ...]:
        return self.columns

    def rows(self) -> list[dict[str, object]]:
        """One dict per sheet row with `columns` as keys."""
        return [{"round": scored.row.round, "player": scored.row.player, "bid": scored.row.bid,
                 "tricks": scored.row.tricks, "griffins_beaten": scored.row.griffins_beaten,
                 self.rules.mermaid_column: scored.row.mermaid_count, "score": scored.score, "total": scored.total}
                for scored in self.scored_rows]

    def document(self) -> dict[str, object]:
        """{"players": {name: {"total": points, "rounds": [points per round]}}, "winner": [names]}."""
        return {
            "players": {player: {"total": self.totals[player],
                                 "rounds": [s.score for s in self.scored_rows if s.row.player == player]}
                        for player in self.players},
            "winner": list(self.winners),
        }

    def notes(self) -> list[str]:
        """Lines for people: the winner (or, before the last round, who leads) and their points."""
        over = self.rounds_played == self.rounds_in_game
        role = ("winner" if over else "leading") if len(self.winners) == 1 else (
            "winners (shared first place)" if over else "leading (shared)")
        progress = "" if over else f" after round {self.rounds_played} of {self.rounds_in_game}"
        return [f"{role}: {', '.join(self.winners)} with {self.totals[self.winners[0]]} points{progress}"]


def score_game(rows: tuple[SheetRow, ...] | list[SheetRow], sheet: str = "sheet",
               rules: Rules = Rules()) -> GameScore:
    """Check a score sheet's rows against the rules and score them.

    InputError, naming the line (or the round and player of a missing row), for: a player count outside 3 to 6, a round
    the game does not have, a bid or a trick count above the round's number of tricks, more bonus dice or mermaid tricks
    than the tricks won allow (see `_check_bonus`), a second row for a player in a round, a player missing a round, and
    tricks in a round that do not add up to the round's number of tricks (with `rules.all_flags` "nobody", that are
    above it: a trick of flags is nobody's).
    """
    players = tuple(dict.fromkeys(row.player for row in rows))
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise InputError(f"{sheet}: {len(players)} players ({', '.join(players)}); "
                         f"Minodice is for {MIN_PLAYERS} to {MAX_PLAYERS}")
    rounds_in_game = rounds_for_players(len(players))
    by_round: dict[int, dict[str, SheetRow]] = {}
    for row in rows:
        where = f"{sheet} line {row.line}"
        if row.round > rounds_in_game:
            raise InputError(f"{where}: round {row.round}, but a {len(players)}-player game "
                             f"has {rounds_in_game} rounds")
        for column in ("bid", "tricks"):
            if getattr(row, column) > row.round:
                raise InputError(f"{where}: {column} {getattr(row, column)} is above the "
                                 f"{counted(row.round, 'trick')} of round {row.round}")
        _check_bonus(row, len(players) - 1, rules, where)
        earlier = by_round.setdefault(row.round, {}).get(row.player)
        if earlier is not None:
            raise InputError(f"{where}: a second row for {row.player} in round {row.round} "
                             f"(the first is line {earlier.line})")
        by_round[row.round][row.player] = row
    rounds_played = max(by_round)
    for round_number in range(1, rounds_played + 1):
        present = by_round.get(round_number, {})
        for player in players:
            if player not in present:
                raise InputError(f"{sheet}: no row for {player} in round {round_number}; "
                                 "every player needs one row per round")
        tricks = sum(row.tricks for row in present.values())
        nobody_takes_flags = rules.all_flags == "nobody"
        if tricks > round_number or (tricks < round_number and not nobody_takes_flags):
            lines = ", ".join(str(row.line) for row in present.values())
            raise InputError(f"{sheet} round {round_number} (lines {lines}): tricks add up to {tricks}, "
                             f"but round {round_number} has {counted(round_number, 'trick')}"
                             f"{' (fewer only when nobody takes a trick of flags)' if nobody_takes_flags else ''}")
    totals = dict.fromkeys(players, 0)
    scored = []
    for round_number in range(1, rounds_played + 1):
        for player in players:
            row = by_round[round_number][player]
            points = score_round(row.bid, row.tricks, row.round, row.griffins_beaten, row.mermaid_count, rules)
            totals[player] += points
            scored.append(ScoredRow(row=row, score=points, total=totals[player]))
    best = max(totals.values())
    return GameScore(players=players, scored_rows=tuple(scored), totals=totals,
                     winners=tuple(player for player in players if totals[player] == best),
                     rounds_played=rounds_played, rounds_in_game=rounds_in_game, rules=rules)


def _check_bonus(row: SheetRow, others: int, rules: Rules, where: str) -> None:
    """Refuse bonus counts the tricks won cannot give.

    Only a trick's winner beats dice, at most one of each of the `others` players'.
    Per minotaur: griffins_beaten + minotaurs_beaten <= tricks x others. Per trick:
    mermaid_tricks <= tricks, and the minotaur's tricks are the others, so
    griffins_beaten <= (tricks - mermaid_tricks) x others.
    """
    if rules.mermaid_bonus == "per-minotaur":
        beaten, most = row.griffins_beaten + row.mermaid_count, row.tricks * others
        if beaten > most:
            raise InputError(f"{where}: griffins_beaten + minotaurs_beaten = {beaten}, above tricks {row.tricks} "
                             f"x {others} other players = {most}; only a trick's winner beats dice, "
                             "at most one of each other player's")
        return
    if row.mermaid_count > row.tricks:
        raise InputError(f"{where}: mermaid_tricks {row.mermaid_count} is above tricks {row.tricks}; "
                         "a mermaid trick is one of the tricks won")
    most = (row.tricks - row.mermaid_count) * others
    if row.griffins_beaten > most:
        raise InputError(f"{where}: griffins_beaten = {row.griffins_beaten}, above (tricks {row.tricks} - "
                         f"mermaid_tricks {row.mermaid_count}) x {others} other players = {most}; only a "
                         "trick's winner beats dice, at most one of each other player's")


def score_sheet(path: str | Path, rules: Rules = Rules()) -> GameScore:
    """Read, check and score the score sheet CSV at `path` under `rules` (see `read_score_sheet`, `score_game`);
    an InputError reading it is about `path`."""
    with about("path"):
        rows = read_score_sheet(path, rules)
    return score_game(rows, sheet=str(path), rules=rules)
