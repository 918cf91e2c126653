"""The rules page, docs/rules.md: every test it links exists, every flag and file it names is real,
and it points to nothing outside the repository."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

from diavolo_stats.cli import build_parser
from diavolo_stats.cli.common import OneLineErrorParser

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "rules.md"
TEXT = PAGE.read_text(encoding="utf-8")
TEST_LINKS = sorted(set(re.findall(r"`(tests/[\w/]+\.py)::([\w:]+)`", TEXT)))
FLAGS = sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", TEXT)))
REPO_FILES = sorted(set(re.findall(r"`((?:diavolo_stats|tests|docs)/[\w/.]+\.(?:py|toml|md))`", TEXT)))


@cache
def functions_in(path: str) -> set[str]:
    """`name` and `Class::name` of every test function in a test file."""
    tree = ast.parse((REPO / path).read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names |= {f"{node.name}::{item.name}" for item in node.body if isinstance(item, ast.FunctionDef)}
    return names


def all_flags(parser: OneLineErrorParser) -> set[str]:
    """Every option string of a parser and of all its subcommands."""
    return {option for each in parser.walk() for action in each.options() for option in action.option_strings
            if option.startswith("--")}


def test_the_page_links_tests_and_names_flags():
    assert len(TEST_LINKS) > 40 and len(FLAGS) > 10


@pytest.mark.parametrize("path, name", TEST_LINKS, ids=[f"{p}::{n}" for p, n in TEST_LINKS])
def test_every_linked_test_exists(path, name):
    assert (REPO / path).is_file(), path
    assert name in functions_in(path), f"{path} has no test {name}"


def test_every_flag_named_exists():
    assert set(FLAGS) - all_flags(build_parser()) == set()


@pytest.mark.parametrize("path", REPO_FILES)
def test_every_repository_file_named_exists(path):
    assert (REPO / path).is_file()


def test_nothing_points_outside_the_repository():
    assert not re.search(r"\.\./|shared[ ]folder|RULES\.md|seeds/", TEXT)
