"""The one name rule: a name that looks blank, hides or turns text, or looks like another is refused at every
door (the drill, Play, the rooms' table, player and variant files), and names that look the same are one player."""

from __future__ import annotations

import unicodedata

import numpy as np
import pytest
from helpers.drill_logs import trial_row

from diavolo_stats.core.variant import Variant
from diavolo_stats.core.variant_file import read_variant
from diavolo_stats.drill.log import DrillLog, load_logs
from diavolo_stats.errors import InputError
from diavolo_stats.game.live import Table
from diavolo_stats.game.player_file import read_player
from diavolo_stats.game.settings import GameRules
from diavolo_stats.names import MAX_NEW_NAME_LENGTH, PLAYER_NAME, looks_alike, name_problem
from diavolo_stats.validation import check_value

FAMILY = "\U0001F468\u200d\U0001F469\u200d\U0001F467"
REFUSED = {
    "a Hangul filler": "\u3164",
    "a blank Braille pattern": "\u2800\u2800",
    "combining marks only": "\u0301\u0302",
    "a right-to-left override": "Ann\u202eSue",
    "a lone surrogate": "Ann\ud800",
    "a Cyrillic letter in a Latin name": "\u0410nn",
    "a Greek letter in a Latin surname": "Sofia Iv\u03b1nova",
    "a joiner between letters": "An\u200dn",
    "longer than a lobby's line": "W" * (MAX_NEW_NAME_LENGTH + 1),
}


@pytest.mark.parametrize("name", list(REFUSED.values()), ids=list(REFUSED))
def test_a_name_that_looks_blank_hides_or_spoofs_is_refused_in_one_line(name):
    with pytest.raises(InputError) as refused:
        check_value("player", name, PLAYER_NAME)
    assert "\n" not in str(refused.value) and str(refused.value).startswith("player: ")


@pytest.mark.parametrize("name", [FAMILY, f"{FAMILY} Ann", "\U0001F3F3\ufe0f\u200d\U0001F308", "Вова",
                                  "Σοφία Ivanova", "さくら子", "José", "Zoë-Ann O'Neil", "W" * MAX_NEW_NAME_LENGTH])
def test_names_of_any_script_and_emoji_sequences_are_taken(name):
    assert name_problem(name) is None and PLAYER_NAME.normalize(name) == unicodedata.normalize("NFKC", name)


def test_a_name_in_another_normal_form_or_full_width_is_the_same_player():
    composed, decomposed, wide = "Jos\u00e9", "Jose\u0301", "\uff2a\uff4f\uff53\u00e9"
    assert PLAYER_NAME.normalize(composed) == PLAYER_NAME.normalize(decomposed) == PLAYER_NAME.normalize(wide)


@pytest.mark.parametrize(("first", "second"), [("Ann", "ANN"), ("ABC", "\u0410\u0412\u0421"), ("Ann", "Ａｎｎ"),
                                               ("José", "JOSE\u0301"), ("Ann  Lee", "ann lee"), ("Il", "I1")])
def test_a_table_seats_one_of_two_names_that_look_the_same(first, second):
    assert looks_alike(first, second)
    table = Table(Variant(), GameRules(), (500, 500), np.random.default_rng(1), lambda row: None)
    table.join(first)
    with pytest.raises(InputError, match="looks the same"):
        table.join(second)
    assert table.join("Bea") == 1 and not looks_alike("Ann", "Anna") and not looks_alike("Ali", "All")


def test_a_family_emoji_is_written_to_the_log_and_read_back(tmp_path):
    log = DrillLog(tmp_path / "log.csv")
    log.append(trial_row(1, player=FAMILY))
    assert list(load_logs([tmp_path / "log.csv"])["player"]) == [FAMILY]


def test_a_player_file_and_a_variant_file_with_a_turned_name_are_refused(tmp_path):
    player = tmp_path / "carol.toml"
    player.write_text('name = "Carol\u202elortnoc"\nbase = "average"\n')
    with pytest.raises(InputError, match="carol.toml: name: .*U\\+202E"):
        read_player(player)
    variant = tmp_path / "turned.toml"
    variant.write_text('name = "sixes\u202e"\n')
    with pytest.raises(InputError, match="turned.toml: name: .*U\\+202E"):
        read_variant(variant)
