"""Every setting of every configuration class, and every declared parameter, refuses bad values by name.

Modelled on scikit-learn's shared parameter-validation test: the classes and
their fields are enumerated from the declarations (`validation.CONFIGURATIONS`,
`validation.CHECKED_FUNCTIONS`, `validation.RECORDS`), so a field added later
is tested without anyone writing a test for it.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import pkgutil

import pytest

import diavolo_stats
from diavolo_stats.errors import InputError
from diavolo_stats.validation import (
    CHECKED_FUNCTIONS,
    CONFIGURATIONS,
    MAX_SHOWN,
    RECORDS,
    RULE,
    Flag,
    Maybe,
    Number,
    OneOf,
    Several,
    Text,
    Whole,
    check_value,
)

# Import every module so that every configuration class and checked function is declared.
for module in pkgutil.walk_packages(diavolo_stats.__path__, "diavolo_stats."):
    if not module.name.endswith("__main__"):
        importlib.import_module(module.name)


def example(cls):
    """A valid instance's arguments: the defaults, plus these for the fields that have none."""
    from diavolo_stats.game.players import PlayerModel
    from diavolo_stats.minodice.dice import load_dice

    required = {
        "DrillSettings": {"player": "ann"},
        "Skill": {"accuracy": 0.9, "mu_ms": 500.0, "sigma_ms": 50.0, "tau_ms": 150.0},
        "PlayerModel": {"name": "ann", "skills": PlayerModel.preset("average").skills},
        "Die": {"name": "white", "faces": (1, 2, 3, 4, 5, 6), "count": 3},
        "Bag": {"dice": load_dice().dice},
        "ExGaussian": {"mu_ms": 500.0, "sigma_ms": 50.0, "tau_ms": 150.0},
        "ReadingModel": {"name": "ann", "time": (7.0,) * 15, "spread": 0.4, "shift_ms": 300.0,
                         "accuracy": (2.0,) * 15},
        "DiffusionModel": {"name": "ann", "drift": (0.5,) * 15, "boundary": (0.2,) * 6, "nondecision_ms": 300.0},
    }
    return dict(required.get(cls.__name__, {}))


# Fields made at construction (init=False, e.g. a grid's variants) are not inputs: they have no rule.
CASES = [(cls, field.name, field.metadata.get(RULE)) for cls in CONFIGURATIONS for field in dataclasses.fields(cls)
         if field.init]


def value_id(value):
    text = repr(value)
    return text if len(text) <= 20 else text[:17] + "..."


def test_the_configuration_classes_are_all_found():
    names = {cls.__name__ for cls in CONFIGURATIONS}
    assert {"Variant", "TableModel", "DrillSettings", "Skill", "PlayerModel", "Rules", "Die", "GameRules",
            "SweepGrid"} <= names


@pytest.mark.parametrize("cls, name, rule", CASES, ids=[f"{c.__name__}.{n}" for c, n, _ in CASES])
def test_every_field_declares_its_rule(cls, name, rule):
    assert rule is not None, f"{cls.__name__}.{name} has no rule: declare it with validation.setting"


@pytest.mark.parametrize("cls", CONFIGURATIONS, ids=[cls.__name__ for cls in CONFIGURATIONS])
def test_the_example_is_valid(cls):
    cls(**example(cls))


BAD = [(cls, name, bad) for cls, name, rule in CASES if rule is not None for bad in rule.bad_values()]


@pytest.mark.parametrize("cls, name, bad", BAD, ids=[f"{c.__name__}.{n}={value_id(b)}" for c, n, b in BAD])
def test_a_bad_value_is_refused_naming_its_field(cls, name, bad):
    with pytest.raises(InputError) as error:
        cls(**{**example(cls), name: bad})
    assert error.value.field == name
    assert "\n" not in str(error.value)


PARAMETERS = [(function, name, bad) for function in CHECKED_FUNCTIONS for name, rule in function.rules.items()
              for bad in rule.bad_values()]


@pytest.mark.parametrize("function, name, bad", PARAMETERS,
                         ids=[f"{f.__name__}.{n}={value_id(b)}" for f, n, b in PARAMETERS])
def test_a_bad_argument_is_refused_naming_its_parameter(function, name, bad):
    # The declared parameters are checked before the function runs, so the others may be left out.
    with pytest.raises(InputError) as error:
        function(**{name: bad})
    assert error.value.field == name


@pytest.mark.parametrize("name", ["trials", "seed"])
def test_the_drill_refuses_a_bool_for_a_number(name):
    """The drill's settings once took trials=True and seed=True as 1."""
    from diavolo_stats.drill.settings import DrillSettings

    with pytest.raises(InputError) as error:
        DrillSettings(player="ann", **{name: True})
    assert error.value.field == name


def test_every_number_rule_offers_a_bool_nan_and_infinity():
    for rule in (Whole(0), Whole(1, 5), Number(above=0)):
        bad = rule.bad_values()
        assert True in bad and math.inf in bad and any(isinstance(v, float) and math.isnan(v) for v in bad)


# ------------------------------------------------------------------ records: a JSON object, a query string

SESSION = "0b7e5c1a-2f4d-4e6b-9a1c-3d5e7f9a1b2c"
RECORD_EXAMPLES = {
    "trial": {"session_id": SESSION, "trial": 1, "player": "Ann", "variant": "standard", "command_first": False,
              "command": "closest", "dice": {"black": [1, 2, 3], "red": [4, 5, 6], "white": [1, 1, 1]},
              "positions": {"command": [150, 150], "black": [[20, 20], [40, 20], [60, 20]],
                            "red": [[20, 60], [40, 60], [60, 60]], "white": [[20, 100], [40, 100], [60, 100]]},
              "answer": "red", "latency_ms": 512.3, "too_early": False, "timed_out": False, "foreperiod_ms": 900,
              "seed": 7, "timestamp": "2026-11-30T12:00:00.000Z"},
    "roll": {"seed": "7", "trial": "1"},
    "game": {"player": "Ann", "opponents": ["preset:average"]},
    "answer": {"round": 1, "answer": "red", "latency_ms": 512.3, "timestamp": "2026-11-30T12:00:00.000Z"},
    "grab": {"type": "answer", "round": 1, "answer": "red", "latency_ms": 512.3,
             "timestamp": "2026-11-30T12:00:00.000Z"},
    "grabs": {"round": 1},
    "join": {"type": "join"},
    "start": {"type": "start"},
    "pong": {"type": "pong", "id": 3},
}
"""A valid record of each name, with every required name (a query string's values are its text)."""


def record_example(record) -> dict:
    return dict(RECORD_EXAMPLES.get(record.name, {}))


def test_the_records_are_all_found():
    assert {"trial", "roll", "odds", "simulate"} <= {record.name for record in RECORDS}


@pytest.mark.parametrize("record", RECORDS, ids=[record.name for record in RECORDS])
def test_the_record_example_is_valid_and_the_defaults_fill_the_rest(record):
    checked = record.check(record_example(record))
    assert list(checked) == list(record.rules)
    assert all(checked[name] == default for name, default in record.defaults.items()
               if name not in record_example(record))


RECORD_FIELDS = [(record, name, rule) for record in RECORDS for name, rule in record.rules.items()]


@pytest.mark.parametrize("record, name, rule", RECORD_FIELDS, ids=[f"{r.name}.{n}" for r, n, _ in RECORD_FIELDS])
def test_every_field_of_a_record_has_values_to_refuse(record, name, rule):
    assert rule.bad_texts() if record.text else rule.bad_values()


RECORD_BAD = [(record, name, bad) for record, name, rule in RECORD_FIELDS
              for bad in (rule.bad_texts() if record.text else rule.bad_values())]


@pytest.mark.parametrize("record, name, bad", RECORD_BAD,
                         ids=[f"{r.name}.{n}={value_id(b)}" for r, n, b in RECORD_BAD])
def test_a_bad_value_in_a_record_is_refused_naming_its_field(record, name, bad):
    with pytest.raises(InputError) as error:
        record.check({**record_example(record), name: bad})
    assert error.value.field == name
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("record", RECORDS, ids=[record.name for record in RECORDS])
def test_a_record_refuses_a_name_it_does_not_declare_listing_those_it_does(record):
    with pytest.raises(InputError) as error:
        record.check({**record_example(record), "no_such_name": "1"})
    assert error.value.field == "no_such_name"
    assert error.value.message.startswith(f"unknown {record.noun}; allowed: {', '.join(record.rules)}")


REQUIRED = [(record, name) for record in RECORDS for name in record.required]


@pytest.mark.parametrize("record, name", REQUIRED, ids=[f"{r.name}.{n}" for r, n in REQUIRED])
def test_a_record_missing_a_required_name_says_so(record, name):
    given = record_example(record)
    del given[name]
    with pytest.raises(InputError) as error:
        record.check(given)
    assert error.value.field == name and error.value.message.startswith("missing")


def test_a_record_is_an_object():
    for record in RECORDS:
        with pytest.raises(InputError) as error:
            record.check([1, 2])
        assert error.value.field == record.name


@pytest.mark.parametrize("rule, text, value", [
    (Whole(0), " 12 ", 12),
    (Whole(-5), "-3", -3),
    (Number(), "1.5", 1.5),
    (Number(), "2", 2.0),
    (Flag(), "true", True),
    (Flag(), "false", False),
    (Several(OneOf(("a", "b"))), "a, b", ("a", "b")),
    (Several(Whole(0)), " 1,2 ", (1, 2)),
    (Several(Whole(0), least=0), " ", ()),
    (Maybe(Whole(0)), "3", 3),
    (OneOf(("a", "b")), "b", "b"),
])
def test_query_text_is_read_as_the_value_the_rule_checks(rule, text, value):
    kept = check_value("x", text, rule, text=True)
    assert kept == value and type(kept) is type(value)


@pytest.mark.parametrize("text", ["1,,2", "1,2,", ",1", ",", "1, ,2"])
def test_an_empty_item_of_a_list_is_refused_not_dropped(text):
    with pytest.raises(InputError, match="has an empty count"):
        check_value("x", text, Several(Whole(0), noun="count"), text=True)


def test_a_long_value_is_quoted_shortened():
    """A value quoted whole made a message as long as the value."""
    with pytest.raises(InputError) as error:
        check_value("player", "x" * 10_000, Text())
    quoted = str(error.value).partition(", got ")[2]
    assert quoted == repr("x" * 10_000)[:MAX_SHOWN] + "..."


def test_a_refused_item_of_a_list_is_quoted_alone():
    """A list quoted whole hid which item was wrong (and made the message as long as the list)."""
    rule = Several(Whole(0, 9), unique=False, noun="digit")
    with pytest.raises(InputError) as error:
        check_value("digits", [1] * 10_000 + [10], rule)
    assert str(error.value) == "digits: each digit must be a whole number from 0 to 9, got 10"
    with pytest.raises(InputError) as count:
        check_value("digits", [1] * 10_000, Several(Whole(0, 9), most=5, unique=False, noun="digit"))
    assert str(count.value) == "digits: need 1 to 5 digits, got 10000"
