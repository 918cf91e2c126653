"""What a user can get wrong, command by command: each is refused with exit 2 and one line, changing nothing.

Every case runs the real `diavolo` entry point in this process (`diavolo_stats.cli.main`), in a
scratch folder holding one of everything a user might point a command at: a drill log, a file that is
not one, a link, a FIFO, a folder, broken score sheets, TOML files and saved simulations. For each
case: exit status 2, exactly one line on stderr, no traceback, and no file in the folder created,
changed or removed.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from datetime import datetime, timezone
from pathlib import Path

import pytest
from helpers.cli import assert_one_line_error, run_diavolo
from helpers.drill_logs import trial_row
from helpers.variants import BAD_VARIANT_FILES

from diavolo_stats.cli import build_parser, main
from diavolo_stats.drill.log import COLUMNS, DrillLog, TrialRow

REPO = Path(__file__).resolve().parent.parent
SIMULATION = REPO / "data" / "simulation_standard.csv"
HEADER = ",".join(COLUMNS)
SHEET_HEADER = "round,player,bid,tricks,griffins_beaten,minotaurs_beaten\n"
BIG = str(10**23)
ARABIC_300 = "\u0663\u0660\u0660"
FULLWIDTH_100 = "\uff11\uff10\uff10"


def drill_row(player: str, trial: int) -> TrialRow:
    return trial_row(trial, session_id=f"s-{player}", player=player, latency_ms=700.0 + trial, seed=1,
                     timestamp=datetime(2024, 5, 1, 12, 0, trial, tzinfo=timezone.utc))


def build_world(folder: Path) -> None:
    """One of everything a command might be pointed at."""
    log = DrillLog(folder / "log.csv")
    for trial in range(1, 4):
        log.append(drill_row("ana", trial))
    good = (folder / "log.csv").read_text(encoding="utf-8").splitlines()
    (folder / "foreign.csv").write_text("name,score\nada,3\n")
    (folder / "header_only.csv").write_text(HEADER + "\n")
    # Logs whose every row the reader skips (it skips a bad row, with a warning): nothing to report.
    (folder / "badrow.csv").write_text("\n".join(good[:1] + ["1,s,ana,2,not-a-time" + ",x" * 15]) + "\n")
    (folder / "bidi.csv").write_text("\n".join(good[:1] + [good[2].replace(",ana,", ",a\u202eb,")]) + "\n")
    (folder / "notutf8.csv").write_bytes(HEADER.encode() + b"\n\xff\xfe\n")
    (folder / "link.csv").symlink_to(folder / "log.csv")
    os.mkfifo(folder / "fifo")
    (folder / "adir").mkdir()
    # Report folders a report must not replace.
    (folder / "linked_dir").symlink_to(folder / "adir")
    (folder / "foreign_dir").mkdir()
    (folder / "foreign_dir" / "notes.txt").write_text("mine\n")
    (folder / "html_dir").mkdir()
    (folder / "html_dir" / "report.html").mkdir()
    (folder / "member_dir").mkdir()
    (folder / "member_dir" / "summary.csv").symlink_to(folder / "foreign.csv")
    # Saved simulations.
    (folder / "badsim.csv").write_text(SIMULATION.read_text().replace(",10000000,", ",lots,", 1))
    (folder / "kidsim.csv").write_text(SIMULATION.read_text().replace("black,red,white;3d6", "black,red,white;2d6"))
    # Player files.
    (folder / "badname.toml").write_text('name = {a = 1}\nbase = "average"\n')
    (folder / "unknownkey.toml").write_text('base = "average"\nspeed = 3\n')
    (folder / "badbase.toml").write_text('base = "godlike"\n')
    (folder / "notoml.toml").write_text("this is = = not toml\n")
    (folder / "badcell.toml").write_text('base = "average"\n[tie.highest-total]\naccuracy = 2\n')
    (folder / "baddice.toml").write_text('[[dice]]\nname = "red"\ncount = 3\nfaces = [1, 2, 3, 9, 5, 6]\n')
    # Variant files, one mistake each (BAD_VARIANT_FILES).
    for name, text in BAD_VARIANT_FILES.items():
        (folder / f"{name}.toml").write_bytes(text if isinstance(text, bytes) else text.encode())
    # Score sheets.
    sheets = {
        "sheet_missing_col": "round,player,bid,tricks\n1,Ann,1,1\n",
        "sheet_arabic": SHEET_HEADER + f"1,Ann,{ARABIC_300[0]},1,0,0\n",
        "sheet_fullwidth": SHEET_HEADER + "\uff11,Ann,1,1,0,0\n",
        "sheet_underscore": SHEET_HEADER + "1,Ann,1_0,1,0,0\n",
        "sheet_empty_player": SHEET_HEADER + "1,,1,1,0,0\n",
        "sheet_extra_value": SHEET_HEADER + "1,Ann,1,1,0,0,9\n",
        "sheet_negative": SHEET_HEADER + "1,Ann,-1,1,0,0\n",
        "sheet_only_empty_rows": SHEET_HEADER + ",,,,,\n,,,,,\n",
        "sheet_empty": "",
        "sheet_impossible": SHEET_HEADER + "1,Ann,1,5,0,0\n1,Bea,0,0,0,0\n1,Cid,0,0,0,0\n",
    }
    for name, text in sheets.items():
        (folder / f"{name}.csv").write_text(text)
    (folder / "sheet_latin1.csv").write_bytes(SHEET_HEADER.encode() + "1,Zoë,1,1,0,0\n".encode("latin-1"))


def snapshot(folder: Path) -> dict[str, tuple]:
    """Every entry under `folder` (not following links): kind, and for files size, mtime and a hash."""
    entries = {}
    for root, folders, files in os.walk(folder):
        for name in folders + files:
            path = Path(root) / name
            info = path.lstat()
            if stat.S_ISREG(info.st_mode):
                entries[str(path.relative_to(folder))] = ("file", info.st_size, info.st_mtime_ns,
                                                          hashlib.sha256(path.read_bytes()).hexdigest())
            elif stat.S_ISLNK(info.st_mode):
                entries[str(path.relative_to(folder))] = ("link", os.readlink(path))
            else:
                entries[str(path.relative_to(folder))] = (stat.S_IFMT(info.st_mode), info.st_mtime_ns)
    return entries


T = "{t}"

SIM = ["--simulation", str(SIMULATION)]
HAND = ["bid", "--hand", "black", "--round", "1", "--players", "3"]

READ = {  # each flag that reads a file, the command line its path ends
    "report log": ["report", "--log"],
    "report simulation": ["report", "--log", f"{T}/log.csv", "--simulation"],
    "game log": ["game", "--players", "ana", "preset:novice", "--log"],
    "drill log": ["drill", "--player", "ana", "--log"],
    "players log": ["players", "--log"],
    "log upgrade": ["log", "upgrade"],
    "score": ["minodice", "score"],
    "minodice odds dice": ["minodice", "odds", "--dice"],
    "minodice bid dice": ["minodice", *HAND, "--dice"],
    "serve log": ["serve", "--port", "0", "--log"],  # refused before anything listens
    "odds variant": ["odds", "--variant"],
}
NOT_FILES = {"a folder": f"{T}/adir", "a fifo": f"{T}/fifo"}
WRITTEN = {  # each flag that writes a file
    "simulate out": ["simulate", "--out"],
    "game out": ["game", "--players", "preset:novice", "preset:expert", "--out"],
    "sweep out": ["sweep", "--out"],
    "synth-log replace": ["synth-log", "--replace", "--log"],
}
BAD_TARGETS = {"a folder": f"{T}/adir", "a link": f"{T}/link.csv", "a fifo": f"{T}/fifo",
               "in a missing folder": f"{T}/nofolder/x.csv", "a device": "/dev/null", "stdout link": "/proc/self/fd/1",
               "a newline name": f"{T}/no\nfolder/x.csv", "a name too long": f"{T}/{'x' * 300}.csv"}
FOLDERS = {  # each flag that writes a folder
    "report out": ["report", "--log", f"{T}/log.csv", *SIM, "--out"],
    "sweep plot": ["sweep", "--sides", "4,6", "--dice-per-color", "2,3", "--out", f"{T}/sweep.csv", "--plot"],
}
NOT_FOLDERS = {"a file": f"{T}/foreign.csv", "under a file": f"{T}/foreign.csv/r"}

CASES: dict[str, list[str]] = {
    # -- no command, unknown command ---------------------------------------------------------------
    "no command": [],
    "unknown command": ["oddz"],
    "unknown flag": ["odds", "--bogus"],
    # -- odds: the variant flags, shared by simulate, drill and game ---------------------------------
    **{f"odds {name.replace('_', ' ')}": ["odds", "--variant", f"{T}/{name}.toml"] for name in BAD_VARIANT_FILES},
    "odds variant file missing": ["odds", "--variant", f"{T}/no-such-variant.toml"],
    "odds variant neither preset nor toml": ["odds", "--variant", f"{T}/log.csv"],
    "simulate variant syntax": ["simulate", "--variant", f"{T}/variant_syntax.toml", "--out", f"{T}/sim.csv"],
    "simulate variant count zero": ["simulate", "--variant", f"{T}/variant_count_zero.toml"],
    "odds dice per color 0": ["odds", "--dice-per-color", "0"],
    "odds dice per color 13": ["odds", "--dice-per-color", "13"],
    "odds dice per color fullwidth": ["odds", "--dice-per-color", "\uff13"],
    "odds dice per color underscore": ["odds", "--dice-per-color", "1_0"],
    "odds dice per color negative": ["odds", "--dice-per-color", "-1"],
    "odds dice per color empty": ["odds", "--dice-per-color", ""],
    "odds dice per color decimal": ["odds", "--dice-per-color", "2.0"],
    "odds sides 1": ["odds", "--sides", "1"],
    "odds sides 101": ["odds", "--sides", "101"],
    "odds sides word": ["odds", "--sides", "six"],
    "odds sides devanagari": ["odds", "--sides", "\u0966"],
    "odds one color": ["odds", "--colors", "black"],
    "odds repeated color": ["odds", "--colors", "black,black"],
    "odds grey color": ["odds", "--colors", "black,grey"],
    "odds capital color": ["odds", "--colors", "Black,Red"],
    "odds nine colors": ["odds", "--colors", "a,b,c,d,e,f,g,h,i"],
    "odds only commas for colors": ["odds", "--colors", ",,"],
    "odds unknown command": ["odds", "--commands", "tallest"],
    "odds repeated command": ["odds", "--commands", "highest-total,highest-total"],
    "odds no command": ["odds", "--commands", ","],
    "odds unknown variant": ["odds", "--variant", "giant"],
    "odds unknown format": ["odds", "--format", "xml"],
    "odds tolerance above 1": ["odds", "--tolerance", "1.5"],
    "odds tolerance negative": ["odds", "--tolerance", "-0.1"],
    "odds tolerance nan": ["odds", "--tolerance", "nan"],
    "odds tolerance inf": ["odds", "--tolerance", "inf"],
    "odds tolerance arabic": ["odds", "--tolerance", "\u0661"],
    "odds tolerance underscore": ["odds", "--tolerance", "0_1"],
    "odds scatter smaller than a die": ["odds", "--scatter-mm", "10"],
    "odds scatter huge": ["odds", "--scatter-mm", "1e9"],
    "odds die 0 mm": ["odds", "--die-mm", "0"],
    "odds die word": ["odds", "--die-mm", "abc"],
    "odds flag without value": ["odds", "--sides"],
    # A NUL character no shell can pass, but a program calling `main` (or the library) can: no file has such a name.
    "odds variant file with a NUL character": ["odds", "--variant", "a\x00b.toml"],
    "report log with a NUL character": ["report", "--log", "a\x00b.csv"],
    "game player with a NUL character": ["game", "--players", "a\x00b.toml", "preset:novice"],
    "minodice odds dice with a NUL character": ["minodice", "odds", "--dice", "a\x00b.toml"],
    # -- simulate ----------------------------------------------------------------------------------
    "simulate rounds 0": ["simulate", "--rounds", "0"],
    "simulate rounds 10**23": ["simulate", "--rounds", BIG],
    "simulate rounds exponent": ["simulate", "--rounds", "1e6"],
    "simulate rounds arabic": ["simulate", "--rounds", ARABIC_300],
    "simulate rounds fullwidth": ["simulate", "--rounds", FULLWIDTH_100],
    "simulate rounds underscore": ["simulate", "--rounds", "1_000"],
    "simulate rounds blank": ["simulate", "--rounds", " "],
    "simulate rounds with commas": ["simulate", "--rounds", "1,000"],
    "simulate rounds 5000 digits": ["simulate", "--rounds", "9" * 5000],
    "simulate workers 0": ["simulate", "--workers", "0"],
    "simulate workers 10000": ["simulate", "--workers", "10000"],
    "simulate workers decimal": ["simulate", "--workers", "2.5"],
    "simulate chunk rounds 0": ["simulate", "--chunk-rounds", "0"],
    "simulate chunk rounds 10**23": ["simulate", "--chunk-rounds", BIG],
    "simulate seed negative": ["simulate", "--seed", "-1"],
    "simulate seed word": ["simulate", "--seed", "abc"],
    "simulate seed fullwidth": ["simulate", "--seed", "\uff15"],
    "simulate unknown format": ["simulate", "--format", "yaml"],
    "simulate rounds missing": ["simulate", "--rounds"],
    "simulate too many dice": ["simulate", "--dice-per-color", "13"],
    "simulate closest tolerance": ["simulate", "--commands", "closest", "--tolerance", "2"],
    "simulate crowded table": ["simulate", "--commands", "closest", "--scatter-mm", "40"],
    # -- drill (refused before the terminal is touched) -----------------------------------------
    "drill no player": ["drill"],
    "drill empty player": ["drill", "--player", ""],
    "drill blank player": ["drill", "--player", "   "],
    "drill bidi override player": ["drill", "--player", "ana\u202eevil"],
    "drill zero width player": ["drill", "--player", "an\u200ba"],
    "drill byte order mark player": ["drill", "--player", "\ufeffana"],
    "drill tab player": ["drill", "--player", "an\ta"],
    "drill newline player": ["drill", "--player", "an\na"],
    "drill long player": ["drill", "--player", "x" * 101],
    "drill trials 0": ["drill", "--player", "ana", "--trials", "0"],
    "drill trials arabic": ["drill", "--player", "ana", "--trials", "\u0663"],
    "drill trials underscore": ["drill", "--player", "ana", "--trials", "1_0"],
    "drill trials over the maximum": ["drill", "--player", "ana", "--trials", "10001"],
    "drill minutes over the maximum": ["drill", "--player", "ana", "--minutes", "601"],
    "drill minutes 0": ["drill", "--player", "ana", "--minutes", "0"],
    "drill minutes negative": ["drill", "--player", "ana", "--minutes", "-1"],
    "drill minutes inf": ["drill", "--player", "ana", "--minutes", "inf"],
    "drill trials and minutes": ["drill", "--player", "ana", "--trials", "5", "--minutes", "1"],
    "drill timeout 0": ["drill", "--player", "ana", "--timeout", "0"],
    "drill timeout 4000": ["drill", "--player", "ana", "--timeout", "4000"],
    "drill shared key": ["drill", "--player", "ana", "--keys", "black=j,red=j"],
    "drill key without answer": ["drill", "--player", "ana", "--keys", "black"],
    "drill quit key": ["drill", "--player", "ana", "--keys", "black=q"],
    "drill unknown answer key": ["drill", "--player", "ana", "--keys", "purple=p"],
    "drill long key": ["drill", "--player", "ana", "--keys", "black=jk"],
    "drill foreperiod reversed": ["drill", "--player", "ana", "--foreperiod-ms", "500,100"],
    "drill foreperiod words": ["drill", "--player", "ana", "--foreperiod-ms", "a,b"],
    "drill foreperiod fullwidth": ["drill", "--player", "ana", "--foreperiod-ms", "\uff15\uff10\uff10,600"],
    "drill foreperiod empty": ["drill", "--player", "ana", "--foreperiod-ms", ""],
    "drill feedback negative": ["drill", "--player", "ana", "--feedback-ms", "-1"],
    "drill feedback huge": ["drill", "--player", "ana", "--feedback-ms", "999999"],
    "drill seed negative": ["drill", "--player", "ana", "--seed", "-1"],
    "drill seed too big": ["drill", "--player", "ana", "--seed", str(2**63)],
    "drill color without screen color": ["drill", "--player", "ana", "--colors", "black,teal"],
    "drill too many sides to show": ["drill", "--player", "ana", "--sides", "100"],
    "drill crowded table": ["drill", "--player", "ana", "--scatter-mm", "40"],
    "drill bad tolerance": ["drill", "--player", "ana", "--tolerance", "5"],
    # -- synth-log ---------------------------------------------------------------------------------
    "synth-log no log": ["synth-log"],
    "synth-log existing log": ["synth-log", "--log", f"{T}/log.csv"],
    "synth-log replace a foreign file": ["synth-log", "--log", f"{T}/foreign.csv", "--replace"],
    "synth-log sessions 0": ["synth-log", "--log", f"{T}/new.csv", "--sessions", "0"],
    "synth-log sessions 1001": ["synth-log", "--log", f"{T}/new.csv", "--sessions", "1001"],
    "synth-log trials 0": ["synth-log", "--log", f"{T}/new.csv", "--trials", "0"],
    "synth-log trials 10001": ["synth-log", "--log", f"{T}/new.csv", "--trials", "10001"],
    "synth-log trials arabic": ["synth-log", "--log", f"{T}/new.csv", "--trials", "\u0666\u0660"],
    "synth-log seed negative": ["synth-log", "--log", f"{T}/new.csv", "--seed", "-3"],
    "synth-log unknown preset": ["synth-log", "--log", f"{T}/new.csv", "--players", "preset:godlike"],
    "synth-log same player twice": ["synth-log", "--log", f"{T}/new.csv", "--players", "preset:expert",
                                    "preset:expert"],
    "synth-log toml name a table": ["synth-log", "--log", f"{T}/new.csv", "--players", f"{T}/badname.toml"],
    "synth-log not toml": ["synth-log", "--log", f"{T}/new.csv", "--players", f"{T}/notoml.toml"],
    "synth-log a name": ["synth-log", "--log", f"{T}/new.csv", "--players", "alice"],
    "synth-log missing toml": ["synth-log", "--log", f"{T}/new.csv", "--players", f"{T}/missing.toml"],
    "synth-log unknown variant": ["synth-log", "--log", f"{T}/new.csv", "--variant", "giant"],
    # -- report ------------------------------------------------------------------------------------
    "report missing log": ["report", "--log", f"{T}/missing.csv"],
    "report foreign log": ["report", "--log", f"{T}/foreign.csv"],
    "report only malformed rows": ["report", "--log", f"{T}/badrow.csv"],
    "report only a bidi name in log": ["report", "--log", f"{T}/bidi.csv"],
    "report log without trials": ["report", "--log", f"{T}/header_only.csv"],
    "report log not utf-8": ["report", "--log", f"{T}/notutf8.csv"],
    "report unknown player": ["report", "--log", f"{T}/log.csv", "--player", "zoe"],
    "report out a linked folder": ["report", "--log", f"{T}/log.csv", "--out", f"{T}/linked_dir", *SIM],
    "report out a folder of other files": ["report", "--log", f"{T}/log.csv", "--out", f"{T}/foreign_dir", *SIM],
    "report out with report.html a folder": ["report", "--log", f"{T}/log.csv", "--out", f"{T}/html_dir", *SIM],
    "report out with a linked member": ["report", "--log", f"{T}/log.csv", "--out", f"{T}/member_dir", *SIM],
    "report missing simulation": ["report", "--log", f"{T}/log.csv", "--simulation", f"{T}/missing.csv"],
    "report simulation not one": ["report", "--log", f"{T}/log.csv", "--simulation", f"{T}/foreign.csv"],
    "report simulation with a word": ["report", "--log", f"{T}/log.csv", "--simulation", f"{T}/badsim.csv"],
    "report simulation of another game": ["report", "--log", f"{T}/log.csv", "--simulation", f"{T}/kidsim.csv"],
    "report unknown format": ["report", "--log", f"{T}/log.csv", "--format", "xml"],
    # -- game --------------------------------------------------------------------------------------
    "game one player": ["game", "--players", "preset:novice"],
    "game seven players": ["game", "--players", *["preset:novice"] * 7],
    "game unknown preset": ["game", "--players", "preset:godlike", "preset:novice"],
    "game toml name a table": ["game", "--players", f"{T}/badname.toml", "preset:novice"],
    "game toml unknown key": ["game", "--players", f"{T}/unknownkey.toml", "preset:novice"],
    "game toml unknown base": ["game", "--players", f"{T}/badbase.toml", "preset:novice"],
    "game not toml": ["game", "--players", f"{T}/notoml.toml", "preset:novice"],
    "game toml accuracy 2": ["game", "--players", f"{T}/badcell.toml", "preset:novice"],
    "game missing toml": ["game", "--players", f"{T}/missing.toml", "preset:novice"],
    "game player not in log": ["game", "--players", "zoe", "preset:novice", "--log", f"{T}/log.csv"],
    "game player from a missing log": ["game", "--players", "ana", "preset:novice", "--log", f"{T}/missing.csv"],
    "game player from a foreign log": ["game", "--players", "ana", "preset:novice", "--log", f"{T}/foreign.csv"],
    "game player a folder": ["game", "--players", f"{T}/adir/", "preset:novice", "--log", f"{T}/log.csv"],
    "game player a fifo": ["game", "--players", f"{T}/fifo", "preset:novice", "--log", f"{T}/log.csv"],
    "game player a folder, no log": ["game", "--players", f"{T}/adir", "preset:novice", "--log", f"{T}/missing.csv"],
    "game player a drill log": ["game", "--players", f"{T}/log.csv", "preset:novice", "--log", f"{T}/log.csv"],
    "game player with too few trials": ["game", "--players", "ana", "preset:novice", "--log", f"{T}/log.csv"],
    "game games 0": ["game", "--players", "preset:novice", "preset:expert", "--games", "0"],
    "game games 10**12": ["game", "--players", "preset:novice", "preset:expert", "--games", str(10**12)],
    "game games arabic": ["game", "--players", "preset:novice", "preset:expert", "--games", "\u0661\u0660"],
    "game max rounds 0": ["game", "--players", "preset:novice", "preset:expert", "--max-rounds", "0"],
    "game max rounds 10**6": ["game", "--players", "preset:novice", "preset:expert", "--max-rounds", str(10**6)],
    "game design games negative": ["game", "--players", "preset:novice", "preset:expert", "--design-games", "-1"],
    "game design games 10**10": ["game", "--players", "preset:novice", "preset:expert",
                                 "--design-games", str(10**10)],
    "game unknown end": ["game", "--players", "preset:novice", "preset:expert", "--end", "sudden-death"],
    "game seed word": ["game", "--players", "preset:novice", "preset:expert", "--seed", "x"],
    "game tolerance 2": ["game", "--players", "preset:novice", "preset:expert", "--tolerance", "2"],
    "game no players": ["game", "--players"],
    # -- minodice score ----------------------------------------------------------------------------
    "score missing sheet": ["minodice", "score", f"{T}/missing.csv"],
    "score missing column": ["minodice", "score", f"{T}/sheet_missing_col.csv"],
    "score arabic digit": ["minodice", "score", f"{T}/sheet_arabic.csv"],
    "score fullwidth digit": ["minodice", "score", f"{T}/sheet_fullwidth.csv"],
    "score underscore number": ["minodice", "score", f"{T}/sheet_underscore.csv"],
    "score empty player": ["minodice", "score", f"{T}/sheet_empty_player.csv"],
    "score extra value": ["minodice", "score", f"{T}/sheet_extra_value.csv"],
    "score negative bid": ["minodice", "score", f"{T}/sheet_negative.csv"],
    "score only empty rows": ["minodice", "score", f"{T}/sheet_only_empty_rows.csv"],
    "score empty file": ["minodice", "score", f"{T}/sheet_empty.csv"],
    "score more tricks than dice": ["minodice", "score", f"{T}/sheet_impossible.csv"],
    "score latin-1 file": ["minodice", "score", f"{T}/sheet_latin1.csv"],
    "score a drill log": ["minodice", "score", f"{T}/log.csv"],
    "score no sheet": ["minodice", "score"],
    "minodice no command": ["minodice"],
    # -- minodice odds -----------------------------------------------------------------------------
    "minodice odds against 0": ["minodice", "odds", "--against", "0"],
    "minodice odds against 6": ["minodice", "odds", "--against", "6"],
    "minodice odds against word": ["minodice", "odds", "--against", "one"],
    "minodice odds against fullwidth": ["minodice", "odds", "--against", "\uff13"],
    "minodice odds against empty": ["minodice", "odds", "--against", ""],
    "minodice odds simulations 0": ["minodice", "odds", "--simulations", "0"],
    "minodice odds simulations 10**10": ["minodice", "odds", "--simulations", str(10**10)],
    "minodice odds unknown method": ["minodice", "odds", "--method", "magic"],
    "minodice odds missing dice file": ["minodice", "odds", "--dice", f"{T}/missing.toml"],
    "minodice odds dice not toml": ["minodice", "odds", "--dice", f"{T}/notoml.toml"],
    "minodice odds face out of range": ["minodice", "odds", "--dice", f"{T}/baddice.toml"],
    "minodice odds unknown rule": ["minodice", "odds", "--equal-specials", "nobody"],
    # -- minodice bid ------------------------------------------------------------------------------
    "bid no hand": ["minodice", "bid", "--round", "1", "--players", "3"],
    "bid unknown die": ["minodice", "bid", "--hand", "black,purple", "--round", "2", "--players", "4"],
    "bid seven players": ["minodice", "bid", "--hand", "black", "--round", "1", "--players", "7"],
    "bid two players": ["minodice", "bid", "--hand", "black", "--round", "1", "--players", "2"],
    "bid one simulation": ["minodice", *HAND, "--simulations", "1"],
    "bid 10**15 simulations": ["minodice", *HAND, "--simulations", str(10**15)],
    "bid seat 4 of 3": ["minodice", *HAND, "--seat", "4"],
    "bid seat 0": ["minodice", *HAND, "--seat", "0"],
    "bid round 0": ["minodice", "bid", "--hand", "black", "--round", "0", "--players", "3"],
    "bid hand larger than the round": ["minodice", "bid", "--hand", "black,red", "--round", "1", "--players", "3"],
    "bid players fullwidth": ["minodice", "bid", "--hand", "black", "--round", "1", "--players", "\uff13"],
    "bid more dice than the bag": ["minodice", "bid", "--hand", "mermaid,mermaid,mermaid", "--round", "3",
                                   "--players", "4"],
    "bid empty hand": ["minodice", "bid", "--hand", "", "--round", "1", "--players", "3"],
    "bid dice file a link to a folder": ["minodice", *HAND, "--dice", f"{T}/linked_dir"],
    # -- sweep: the grid, the output file, the heatmap folder, the scheduler --------------------------------
    "sweep reversed range": ["sweep", "--sides", "6..2", "--out", f"{T}/sweep.csv"],
    "sweep empty range": ["sweep", "--dice-per-color", "3..", "--out", f"{T}/sweep.csv"],
    "sweep empty list": ["sweep", "--sides", "", "--out", f"{T}/sweep.csv"],
    "sweep fullwidth digit": ["sweep", "--sides", "\uff16", "--out", f"{T}/sweep.csv"],
    "sweep decimals without a step": ["sweep", "--tolerance", "0.1..0.3", "--out", f"{T}/sweep.csv"],
    "sweep grid over the maximum": ["sweep", "--colors-count", "2..8", "--dice-per-color", "1..12", "--sides",
                                    "2..100", "--tolerance", "0..1:0.1", "--die-mm", "10,12", "--out",
                                    f"{T}/sweep.csv"],
    "sweep unknown command": ["sweep", "--commands", "closets", "--out", f"{T}/sweep.csv"],
    "sweep tolerance 1.5": ["sweep", "--tolerance", "1.5", "--out", f"{T}/sweep.csv"],
    "sweep variant off the table": ["sweep", "--colors-count", "8", "--dice-per-color", "12", "--scatter-mm", "100",
                                    "--out", f"{T}/sweep.csv"],
    "sweep variant file unknown figure": ["sweep", "--variant", f"{T}/variant_unknown_figure.toml"],
    "sweep variant neither preset nor toml": ["sweep", "--variant", "giant"],
    "sweep command not in the file": ["sweep", "--variant", f"{T}/variant_count_zero.toml", "--commands", "x"],
    "sweep nearest without a target": ["sweep", "--nearest", "2", "--out", f"{T}/sweep.csv"],
    "sweep nearest 0": ["sweep", "--target", "overall=0.1..0.2", "--nearest", "0"],
    "sweep target overall reversed": ["sweep", "--target", "overall=0.3..0.1", "--out", f"{T}/sweep.csv"],
    "sweep workers 0": ["sweep", "--workers", "0"],
    "sweep workers and scheduler": ["sweep", "--workers", "2", "--scheduler", "local:2"],
    "sweep local cluster of 0": ["sweep", "--scheduler", "local:0"],
    "sweep scheduler not an address": ["sweep", "--scheduler", "somewhere:8786"],
    "sweep out not csv or parquet": ["sweep", "--out", f"{T}/sweep.txt"],
    "sweep out exists without resume": ["sweep", "--out", f"{T}/log.csv"],
    "sweep resume a file that is not a sweep": ["sweep", "--out", f"{T}/foreign.csv", "--resume"],
    "sweep resume without out": ["sweep", "--resume"],
    "sweep target malformed": ["sweep", "--target", "closest", "--out", f"{T}/sweep.csv"],
    "sweep target reversed": ["sweep", "--target", "closest=0.3..0.1", "--out", f"{T}/sweep.csv"],
    "sweep target command not swept": ["sweep", "--commands", "most-odd", "--target", "closest=..0.2"],
    "sweep plot with one parameter varying": ["sweep", "--sides", "4,6", "--plot", f"{T}/plots"],
    "sweep plot into a folder of other files": ["sweep", "--sides", "4,6", "--dice-per-color", "2,3", "--plot",
                                                f"{T}/foreign_dir", "--out", f"{T}/sweep.csv"],
    "sweep plot axes empty": ["sweep", "--sides", "4,6", "--dice-per-color", "2,3", "--plot", f"{T}/plots",
                              "--plot-axes", ""],  # not the default axes
    "sweep plot axes unknown": ["sweep", "--sides", "4,6", "--dice-per-color", "2,3", "--plot", f"{T}/plots",
                                "--plot-axes", "sides,weight"],
}


def _command_and_flag(argv: list[str]) -> tuple[str, str | None]:
    """The (sub)command of a path case and its flag (None for an argument): what its help calls it."""
    first_flag = next((at for at, word in enumerate(argv) if word.startswith("-")), len(argv))
    return " ".join(argv[:first_flag]), argv[-1] if argv[-1].startswith("--") else None


ARGUMENTS = {"log upgrade": "FILE", "minodice score": "SHEET.csv"}
"""The path an argument (not a flag) names, by its command: an error names it by its placeholder."""


def _named(argv: list[str]) -> str:
    """The flag, or the argument's placeholder, that the last word of a path case is given to."""
    command, flag = _command_and_flag(argv)
    return ARGUMENTS[command] if flag is None else flag


# A path of the wrong kind, for every flag that reads or writes one: the error starts with the flag.
WRONG_KINDS = {
    **{f"{flag} {what}": [*argv, path] for flag, argv in READ.items() for what, path in NOT_FILES.items()},
    **{f"{flag} {what}": [*argv, path] for flag, argv in WRITTEN.items() for what, path in BAD_TARGETS.items()},
    **{f"{flag} {what}": [*argv, path] for flag, argv in FOLDERS.items() for what, path in NOT_FOLDERS.items()},
}
CASES.update(WRONG_KINDS)


def test_the_module_covers_at_least_150_bad_invocations_of_every_command():
    commands = {argv[0] for argv in CASES.values() if argv}
    assert len(CASES) >= 150
    assert commands == {"odds", "simulate", "sweep", "drill", "synth-log", "report", "game", "minodice", "players",
                        "log", "serve", "oddz"}


@pytest.mark.parametrize("argv, named", [(argv, _named(argv[:-1]) if name in WRONG_KINDS else None)
                                         for name, argv in CASES.items()], ids=list(CASES))
def test_a_bad_invocation_is_refused_with_one_line_and_changes_nothing(argv, named, tmp_path, monkeypatch, capsys):
    world = tmp_path / "world"
    world.mkdir()
    build_world(world)
    monkeypatch.chdir(world)  # the default outputs (data/reports, data/drills.csv) would land here
    monkeypatch.setenv("DIAVOLO_LOG", str(world / "log.csv"))
    before = snapshot(world)
    argv = [arg.replace(T, str(world)) for arg in argv]
    try:
        status = main(argv)
    except SystemExit as exit_:
        status = exit_.code
    out, err = capsys.readouterr()
    assert status == 2, (status, out, err)
    # One error line; before it only what the reader skipped on the way, each in one line of its own.
    *warned, error = err.splitlines()
    assert error.startswith("diavolo: error: ") and all(line.startswith("diavolo: warning: ") for line in warned), err
    assert "Traceback" not in err
    assert "interactive terminal" not in err  # the drill refused the bad input, not the test's missing terminal
    if named is not None:  # a path of the wrong kind: named by its flag, as every flag's error is
        assert error.startswith(f"diavolo: error: {named}: "), error
    assert snapshot(world) == before
    shutil.rmtree(world)


def test_a_report_leaves_out_a_row_it_cannot_read_and_names_its_line(tmp_path):
    build_world(tmp_path)
    good = (tmp_path / "log.csv").read_text(encoding="utf-8").splitlines()
    forged = good[2].replace("2024-05-01T", "0001-01-01T")  # a time no drill has, as a forged trial once had
    (tmp_path / "mixed.csv").write_text("\n".join(good[:2] + [forged] + good[3:]) + "\n", encoding="utf-8")
    result = run_diavolo("report", "--log", str(tmp_path / "mixed.csv"), "--out", str(tmp_path / "report"),
                         "--simulation", str(SIMULATION), "--format", "json")
    assert result.returncode == 0, result.stderr
    # One line, as the command says anything: what was skipped and why, not Python's warning format.
    [warning] = result.stderr.splitlines()
    assert warning.startswith("diavolo: warning: ") and "skipped 1 row" in warning
    assert "line 3: timestamp must be" in warning and "SkippedRowsWarning" not in warning
    assert (tmp_path / "report" / "report.html").is_file()


PATH_METAVARS = {"PATH", "FILE", "FILE.csv", "SHEET.csv", "DIR", "NAME|FILE"}
"""The placeholders a flag (or an argument) that names a file or a folder shows in its help."""
PATHS = {**{name: (argv, "file") for name, argv in {**READ, **WRITTEN}.items()},
         **{name: (argv, "folder") for name, argv in FOLDERS.items()}}


@pytest.mark.parametrize("argv, noun", PATHS.values(), ids=list(PATHS))
def test_an_empty_path_is_refused_naming_its_flag_never_taken_for_the_default(argv, noun, tmp_path, monkeypatch):
    # Path("") is the current folder, and `path or DEFAULT` would put the default in its place; either way the
    # command would run on something the user did not name. It is refused before any work, in FilePath's words.
    build_world(tmp_path)
    monkeypatch.setenv("DIAVOLO_LOG", str(tmp_path / "log.csv"))
    before = snapshot(tmp_path)
    result = run_diavolo(*(arg.replace(T, str(tmp_path)) for arg in argv), "", cwd=tmp_path)
    flag = _named(argv)
    said = "unknown variant ''" if flag == "--variant" else f"must be a {noun} path, got ''"
    assert_one_line_error(result, f"diavolo: error: {flag}: {said}")
    assert snapshot(tmp_path) == before


def test_the_path_cases_are_every_flag_that_names_a_file_or_a_folder():
    # --variant (NAME|FILE) is the same flag, read by `variant_named`, on every command that has it: one case.
    flags = {(parser.prog.removeprefix("diavolo "), max(action.option_strings, key=len) if action.option_strings
              else None) for parser in build_parser().walk() for action in parser.options()
             if action.metavar in PATH_METAVARS and action.metavar != "NAME|FILE"}
    assert flags | {("odds", "--variant")} == {_command_and_flag(argv) for argv, _ in PATHS.values()}
