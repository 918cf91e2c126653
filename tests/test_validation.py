"""Every setting of every configuration class, and every declared parameter, refuses bad values by name.

Modelled on scikit-learn's shared parameter-validation test: the classes and
their fields are enumerated from the declarations (`validation.CONFIGURATIONS`,
`validation.CHECKED_FUNCTIONS`), so a field added later is tested without
anyone writing a test for it.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import pkgutil

import pytest

import diavolo_stats
from diavolo_stats.errors import InputError
from diavolo_stats.validation import CHECKED_FUNCTIONS, CONFIGURATIONS, RULE, Number, Whole

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
    from diavolo_stats.drill.session import DrillSettings

    with pytest.raises(InputError) as error:
        DrillSettings(player="ann", **{name: True})
    assert error.value.field == name


def test_every_number_rule_offers_a_bool_nan_and_infinity():
    for rule in (Whole(0), Whole(1, 5), Number(above=0)):
        bad = rule.bad_values()
        assert True in bad and math.inf in bad and any(isinstance(v, float) and math.isnan(v) for v in bad)
