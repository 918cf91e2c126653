"""Player models: presets, TOML files, players named from a drill log, and sampling answers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers.drill_logs import modelled_rows, write_log

from diavolo_stats.core.rules import GREY_CODE
from diavolo_stats.core.variant import ALL_COMMANDS, Command, Variant
from diavolo_stats.drill import MIN_LATENCY_MS
from diavolo_stats.drill.log import load_logs
from diavolo_stats.drill.roll_features import RollFeatures
from diavolo_stats.errors import InputError
from diavolo_stats.game.player_file import read_player
from diavolo_stats.game.players import PlayerModel, Skill
from diavolo_stats.game.reading import Lineup, ReadingModel, reading_of
from diavolo_stats.game.reading_fit import FIT_COLUMNS, fit_reading
from diavolo_stats.game.settings import MODELS
from diavolo_stats.game.specs import fit_log, fit_players, player_from_spec, players_from_specs
from diavolo_stats.names import MAX_PLAYER_LENGTH
from diavolo_stats.stats import proportion_estimate

Z_999 = 3.29
PRESETS = ("novice", "average", "expert")


def mean_interval(mean: float, sd: float, count: int) -> tuple[float, float]:
    """A 99.9 % interval for the mean of `count` draws of a distribution with this mean and sd."""
    half = Z_999 * sd / math.sqrt(count)
    return mean - half, mean + half


class TestPresets:
    def test_every_preset_covers_every_command_for_tie_and_non_tie_rolls(self):
        for name in PRESETS:
            skills = PlayerModel.preset(name).skills
            assert set(skills) == {(c, t) for c in ALL_COMMANDS for t in (False, True)}

    def test_experts_are_faster_and_more_accurate_than_average_players_than_novices(self):
        novice, average, expert = (PlayerModel.preset(name) for name in PRESETS)
        for key in novice.skills:
            assert expert.skills[key].mean_ms < average.skills[key].mean_ms < novice.skills[key].mean_ms
            assert expert.skills[key].accuracy > average.skills[key].accuracy > novice.skills[key].accuracy

    def test_tie_rolls_are_slower_and_harder(self):
        average = PlayerModel.preset("average")
        for command in ALL_COMMANDS:
            tie, plain = average.skills[(command, True)], average.skills[(command, False)]
            assert tie.mean_ms > plain.mean_ms and tie.accuracy < plain.accuracy

    def test_unknown_preset_lists_the_allowed_names(self):
        with pytest.raises(InputError, match="novice, average, expert"):
            PlayerModel.preset("wizard")


def plain_rolls(command: Command, count: int, grey: bool = False) -> RollFeatures:
    """`count` rolls of the box's 9 dice of `command`, no near tie, dice first."""
    return RollFeatures(command=np.full(count, ALL_COMMANDS.index(command), np.int8),
                        dice=np.full(count, 9, np.int16), near_tie=np.zeros(count, bool),
                        grey=np.full(count, grey), command_first=np.zeros(count, bool))


def latency_interval(model: ReadingModel, rolls: RollFeatures, count: int) -> tuple[float, float]:
    """A 99.9 % interval for the mean latency of `count` draws on one kind of roll (a shifted log-normal)."""
    mean = float(model.mean_latency_ms(rolls)[0])
    sd = (mean - model.shift_ms) * math.sqrt(math.exp(model.spread**2) - 1)
    return mean_interval(mean, sd, count)


class TestSampling:
    def test_accuracy_and_mean_latency_are_the_model_s(self):
        model = reading_of(PlayerModel.preset("average"))
        count = 40_000
        rolls = plain_rolls(Command.MOST_ODD, count)
        correct, latency = Lineup([model]).sample(rolls, np.random.default_rng(1))
        estimate = proportion_estimate(int(correct.sum()), count, confidence=0.999)
        assert model.chance_right(rolls)[0] in estimate
        low, high = latency_interval(model, rolls, count)
        assert low <= latency.mean() <= high
        assert latency.dtype == np.float64 and correct.dtype == bool

    def test_a_preset_plays_its_own_figures_on_a_plain_roll(self):
        # The preset's mean and accuracy per command are what its reading model gives a plain box roll.
        for level in ("novice", "expert"):
            player = PlayerModel.preset(level)
            model = reading_of(player)
            for command in ALL_COMMANDS:
                skill = player.skills[(command, False)]
                rolls = plain_rolls(command, 1)
                assert model.mean_latency_ms(rolls)[0] == pytest.approx(skill.mean_ms)
                assert model.chance_right(rolls)[0] == pytest.approx(skill.accuracy, abs=1e-9)

    def test_latencies_are_never_below_the_floor(self):
        fast = ReadingModel(name="fast", time=(1.0,) * 15, spread=2.0, shift_ms=0.0, accuracy=(2.0,) * 15)
        _, latency = fast.sample(plain_rolls(Command.HIGHEST_DIE, 5000), np.random.default_rng(2))
        assert latency.min() >= MIN_LATENCY_MS

    def test_wrong_answers_grab_grey_at_the_model_s_share_and_never_the_answer(self):
        count = 60_000
        sloppy = PlayerModel.preset("novice").scaled(1.0, 4.0)
        answers = np.random.default_rng(3).integers(-1, 3, size=count).astype(np.int8)
        accepted = np.stack([answers, answers])
        rolls = plain_rolls(Command.HIGHEST_TOTAL, count)
        grabbed, _ = Lineup([sloppy]).respond(accepted, rolls, 3, np.random.default_rng(4))
        wrong = grabbed[0] != answers
        non_tie_wrong = wrong & (answers != GREY_CODE)
        greys = int((grabbed[0][non_tie_wrong] == GREY_CODE).sum())
        estimate = proportion_estimate(greys, int(non_tie_wrong.sum()), confidence=0.999)
        assert sloppy.wrong_grey_share in estimate
        # Wrong on a tie: a color, any of the three.
        tie_wrong = grabbed[0][wrong & (answers == GREY_CODE)]
        assert set(np.unique(tie_wrong)) == {0, 1, 2}

    def test_on_an_ambiguous_closest_right_players_grab_grey_and_wrong_ones_never_an_accepted_answer(self):
        count = 30_000
        sloppy = PlayerModel.preset("novice")
        nearest = np.random.default_rng(6).integers(0, 3, size=count).astype(np.int8)
        accepted = np.stack([np.full(count, GREY_CODE, np.int8), nearest])  # grey by the tolerance alone
        rolls = plain_rolls(Command.CLOSEST, count, grey=True)
        grabbed, _ = Lineup([sloppy]).respond(accepted, rolls, 3, np.random.default_rng(7))
        right = grabbed[0] == GREY_CODE
        assert 0 < right.sum() < count
        wrong = grabbed[0][~right]
        assert not (wrong == nearest[~right]).any()
        # Both colors left are chosen.
        assert set(np.unique((wrong - nearest[~right]) % 3)) == {1, 2}

    def test_a_lineup_samples_each_player_with_their_own_reading(self):
        count = 20_000
        players = [PlayerModel.preset("expert"), PlayerModel.preset("novice")]
        rolls = plain_rolls(ALL_COMMANDS[0], count)
        _, latency = Lineup(players).sample(rolls, np.random.default_rng(5))
        for row, player in zip(latency, players):
            low, high = latency_interval(reading_of(player), rolls, count)
            assert low <= row.mean() <= high

    def test_scaled_multiplies_latencies_and_error_rates(self):
        average = PlayerModel.preset("average")
        faster = average.scaled(0.5, 0.5)
        for key, skill in average.skills.items():
            assert faster.skills[key].mean_ms == pytest.approx(skill.mean_ms / 2)
            assert 1 - faster.skills[key].accuracy == pytest.approx((1 - skill.accuracy) / 2)


class TestValidation:
    def test_a_model_needs_every_command_for_both_kinds_of_roll(self):
        skill = Skill(0.9, 1000.0, 100.0, 300.0)
        with pytest.raises(InputError, match="missing closest tie"):
            PlayerModel("x", {(c, t): skill for c in ALL_COMMANDS for t in (False, True)
                              if (c, t) != (Command.CLOSEST, True)})

    @pytest.mark.parametrize("field, value", [("accuracy", 1.5), ("mu_ms", -1.0), ("tau_ms", float("nan"))])
    def test_skill_fields_are_checked(self, field, value):
        numbers = {"accuracy": 0.9, "mu_ms": 1000.0, "sigma_ms": 100.0, "tau_ms": 300.0, field: value}
        with pytest.raises(InputError, match=field):
            Skill(**numbers)

    def test_wrong_grey_share_is_a_probability(self):
        with pytest.raises(InputError, match="wrong_grey_share"):
            PlayerModel("x", PlayerModel.preset("average").skills, wrong_grey_share=2.0)


class TestToml:
    def test_a_full_file(self, tmp_path):
        cells = "\n".join(f"[{kind}.{command}]\naccuracy = 0.8\nmu_ms = 900\nsigma_ms = 90\ntau_ms = 250\n"
                          for kind in ("non-tie", "tie") for command in ALL_COMMANDS)
        path = tmp_path / "carol.toml"
        path.write_text(f'name = "Carol"\nwrong_grey_share = 0.2\n{cells}', encoding="utf-8")
        carol = read_player(path)
        assert carol.name == "Carol" and carol.wrong_grey_share == 0.2
        assert set(carol.skills.values()) == {Skill(0.8, 900, 90, 250)}

    def test_a_base_preset_fills_what_the_file_leaves_out(self, tmp_path):
        path = tmp_path / "dan.toml"
        path.write_text('base = "expert"\n[tie.closest]\naccuracy = 0.5\nmu_ms = 2000\nsigma_ms = 200\n'
                        'tau_ms = 600\n', encoding="utf-8")
        dan, expert = read_player(path), PlayerModel.preset("expert")
        assert dan.name == "dan"
        assert dan.skills[(Command.CLOSEST, True)] == Skill(0.5, 2000, 200, 600)
        assert dan.skills[(Command.CLOSEST, False)] == expert.skills[(Command.CLOSEST, False)]

    @pytest.mark.parametrize("text, fragment", [
        ('speed = 3\n', "unknown key 'speed'"),
        ('[non-tie.closest]\naccuracy = 0.5\n', "need exactly accuracy, mu_ms, sigma_ms, tau_ms"),
        ('base = "average"\n[tie.fastest]\naccuracy = 1\nmu_ms = 1\nsigma_ms = 1\ntau_ms = 1\n', "fastest"),
        ('base = "average"\n[tie.closest]\naccuracy = 2\nmu_ms = 1\nsigma_ms = 1\ntau_ms = 1\n', "accuracy"),
        ('name = [', "not valid TOML"),
        ('name = "no cells"\n', "missing"),
        ('base = "pro"\n', "base: unknown player preset 'pro'"),
    ])
    def test_bad_files_name_the_file_and_the_problem(self, tmp_path, text, fragment):
        path = tmp_path / "bad.toml"
        path.write_text(text, encoding="utf-8")
        with pytest.raises(InputError, match=str(path)) as error:
            read_player(path)
        assert fragment in str(error.value)


@pytest.fixture(scope="module")
def drill_log_path(tmp_path_factory):
    """One drill log: 'ann' played highest-die 400 times (and nothing else); 'bo' played 60 mixed rounds."""
    path = tmp_path_factory.mktemp("drills") / "drills.csv"
    write_log(path, modelled_rows("ann", PlayerModel.preset("average"), 400, seed=21,
                    variant=Variant(commands=(Command.HIGHEST_DIE,))))
    write_log(path, modelled_rows("bo", PlayerModel.preset("novice"), 60, seed=22))
    return path


class TestFromTheLog:
    @pytest.mark.parametrize("model", MODELS)
    def test_a_name_plays_as_their_fit_with_the_log_s_other_players(self, drill_log_path, model):
        fit = fit_log(drill_log_path, model)
        ann = player_from_spec("ann", fit)
        assert ann == fit_players(load_logs([drill_log_path], columns=FIT_COLUMNS), model).player("ann").model
        assert player_from_spec("ann", log_path=drill_log_path) == fit_log(drill_log_path).player("ann").model
        # Ann drilled highest-die 400 times as an average player: her figures there are the preset's, within noise.
        rolls = plain_rolls(Command.HIGHEST_DIE, 1)
        truth = reading_of(PlayerModel.preset("average"))
        assert ann.mean_latency_ms(rolls)[0] == pytest.approx(truth.mean_latency_ms(rolls)[0], rel=0.1)
        assert ann.chance_right(rolls)[0] == pytest.approx(truth.chance_right(rolls)[0], abs=0.05)

    def test_a_command_never_drilled_is_the_club_s_figure_not_a_guess_from_nothing(self, drill_log_path):
        # Ann never drilled closest: her closest figure is drawn to the club's (Bo drilled it), and defined.
        fit = fit_reading(load_logs([drill_log_path], columns=FIT_COLUMNS))
        ann = fit.player("ann")
        closest = ann.interval("time", "command:closest")
        assert np.isfinite([closest.low, closest.high]).all()
        assert ann.answers_per_coefficient[ALL_COMMANDS.index(Command.CLOSEST)] == 0
        assert fit.club.model.time[ALL_COMMANDS.index(Command.CLOSEST)] in closest

    def test_a_game_with_the_command_shown_first_warns_about_a_player_who_never_drilled_it(self, drill_log_path):
        with pytest.warns(UserWarning, match="'ann': no drill rows with the command die shown first"):
            player_from_spec("ann", log_path=drill_log_path, command_first=True)

    @pytest.mark.parametrize("model", MODELS)
    def test_a_model_takes_the_longest_name_a_drill_log_holds_and_no_longer(self, tmp_path, model):
        name = "x" * MAX_PLAYER_LENGTH
        path = tmp_path / "drills.csv"
        write_log(path, modelled_rows(name, PlayerModel.preset("average"), 60, seed=23))
        assert player_from_spec(name, fit_log(path, model)).name == name
        with pytest.raises(InputError, match=f"at most {MAX_PLAYER_LENGTH}"):
            PlayerModel.preset("average").scaled(name=name + "x")

    def test_a_player_not_in_the_log_is_an_input_error_naming_the_players(self, drill_log_path):
        with pytest.raises(InputError, match="^players: 'zed' is not a player of the drill log; its players: ann"):
            player_from_spec("zed", log_path=drill_log_path)


class TestSpecs:
    def test_specs_resolve_presets_files_and_log_names(self, drill_log_path, tmp_path):
        path = tmp_path / "eve.toml"
        path.write_text('base = "novice"\n', encoding="utf-8")
        players = players_from_specs(["preset:expert", str(path), "ann"], log_path=drill_log_path)
        assert [p.name for p in players] == ["expert", "eve", "ann"]
        assert players[1].skills == PlayerModel.preset("novice").skills

    def test_presets_and_files_need_no_drill_log(self, tmp_path):
        players = players_from_specs(["preset:novice", "preset:average"], log_path=tmp_path / "missing.csv")
        assert len(players) == 2

    def test_a_missing_log_names_the_log_path(self, tmp_path):
        with pytest.raises(InputError, match="^log_path: no drill log"):
            player_from_spec("ann", log_path=tmp_path / "missing.csv")

    def test_an_unknown_preset_names_the_players(self):
        with pytest.raises(InputError, match="^players: unknown player preset 'preset:pro'; allowed: preset:novice"):
            player_from_spec("preset:pro")
