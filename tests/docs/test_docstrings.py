"""Docstrings say what the code does and why in a few lines; the design they point to is on the architecture page."""

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "diavolo_stats"
ARCHITECTURE = PACKAGE.parent / "docs" / "architecture.md"

MODULE_LINES = 8
"""A module's docstring: its first line, then what it does and why in a short paragraph."""

OTHER_LINES = 12
"""A class's or function's docstring: a few lines, or a parameter list where one is needed."""

def docstrings(path: Path):
    """(name, lines) of the module's docstring and of every class's and function's in it."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                yield getattr(node, "name", None), body[0].end_lineno - body[0].lineno + 1


def modules():
    found = sorted(PACKAGE.rglob("*.py"))
    assert len(found) > 100
    return [(path.relative_to(PACKAGE).as_posix(), path) for path in found]


def test_every_module_docstring_is_a_few_lines():
    long = [f"{name}: {lines} lines" for name, path in modules()
            for owner, lines in docstrings(path) if owner is None and lines > MODULE_LINES]
    assert not long, f"module docstrings over {MODULE_LINES} lines:\n" + "\n".join(long)


def test_no_class_or_function_docstring_is_an_essay():
    long = [f"{name} {owner}: {lines} lines" for name, path in modules()
            for owner, lines in docstrings(path) if owner is not None and lines > OTHER_LINES]
    assert not long, f"docstrings over {OTHER_LINES} lines:\n" + "\n".join(long)


def test_every_section_of_the_architecture_page_a_module_names_is_there():
    headings = {re.sub(r" \(`.*$", "", line.lstrip("#").strip())
                for line in ARCHITECTURE.read_text(encoding="utf-8").splitlines() if line.startswith(("## ", "### "))}
    reference = re.compile(r'docs/architecture\.md,?\s+\(?"([^"]+)"')
    named = [(name, " ".join(section.split())) for name, path in modules()
             for section in reference.findall(path.read_text(encoding="utf-8"))]
    assert len(named) > 20
    missing = [f"{name}: {section!r}" for name, section in named if section not in headings]
    assert not missing, "sections of docs/architecture.md that are not there:\n" + "\n".join(missing)
