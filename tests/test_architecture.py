"""The package's shape: layers import only downwards, flags live only in cli/, the public surface resolves."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

import diavolo_stats

PACKAGE = Path(diavolo_stats.__file__).parent

# Lower to higher. A module may import its own layer and any lower one, never a higher one.
# Minodice stands beside the Diavolo layers: it uses only the base, and only the outer layers use it.
LAYERS = {
    "errors": 0, "stats": 0, "files": 0, "results": 0, "validation": 0, "plots": 0, "names": 0, "toml_files": 0,
    "core": 1, "drill": 2, "game": 3, "analytics": 4, "minodice": 5, "sweep": 5, "web": 5, "cli": 6,
}
BASE = {"errors", "stats", "files", "results", "validation", "plots", "names", "toml_files"}
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


def modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path, path.relative_to(PACKAGE).parts


def layer_of(parts: tuple[str, ...]) -> str | None:
    name = parts[0].removesuffix(".py")
    return name if name in LAYERS else None


def imported(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return {name.split(".")[1] for name in names if name.startswith("diavolo_stats.") and name.count(".") >= 1}


def test_the_layers_are_known():
    found = {layer_of(parts) for _, parts in modules()} - {None}
    assert found >= {"core", "drill", "game", "analytics", "minodice", "cli", "errors", "stats", "files", "results"}


@pytest.mark.parametrize("path, parts", list(modules()), ids=["/".join(parts) for _, parts in modules()])
def test_no_module_imports_a_higher_layer(path, parts):
    layer = layer_of(parts)
    if layer is None:  # __init__.py and __main__.py of the package itself
        return
    uses = {name for name in imported(ast.parse(path.read_text(encoding="utf-8"))) if layer_of((name,))}
    if layer == "minodice":
        allowed = BASE | {"minodice"}
    else:
        allowed = {name for name in LAYERS if LAYERS[name] <= LAYERS[layer]}
    assert uses <= allowed, f"{'/'.join(parts)} imports {sorted(uses - allowed)}"


@pytest.mark.parametrize("path, parts", [(p, parts) for p, parts in modules() if parts[0] != "cli"],
                         ids=["/".join(parts) for _, parts in modules() if parts[0] != "cli"])
def test_no_module_outside_cli_names_a_command_line_flag(path, parts):
    """Library errors and docs speak of fields (`dice_per_color`); only cli/ knows `--dice-per-color`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    texts = [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)]
    flags = sorted({flag for text in texts for flag in FLAG.findall(text)})
    assert not flags, f"{'/'.join(parts)} names {flags}"


def test_the_public_surface_resolves():
    """Every name in `diavolo_stats.__all__` is importable from the package itself."""
    assert {"InputError", "Variant", "Command", "TableModel", "exact_odds", "simulate", "load_logs",
            "play_games", "game_report"} <= set(diavolo_stats.__all__)
    for name in diavolo_stats.__all__:
        value = getattr(diavolo_stats, name)
        assert value.__name__ == name, name
    with pytest.raises(AttributeError):
        diavolo_stats.no_such_name  # noqa: B018


def test_importing_the_package_loads_no_heavy_library():
    """The drill and the command line import `diavolo_stats`; it must not pull pandas, matplotlib or scipy."""
    code = ("import sys, diavolo_stats, diavolo_stats.cli; "
            "print(sorted(m for m in ('pandas', 'matplotlib', 'scipy') if m in sys.modules))")
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert output.strip() == "[]"


def defined_names() -> dict[str, list[str]]:
    """Every module-level function, class and constant outside cli/: name -> the modules defining it."""
    found: dict[str, list[str]] = {}
    for path, parts in modules():
        if parts[0] == "cli":  # every command module has its register and run
            continue
        names = set()
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names |= {target.id for target in targets if isinstance(target, ast.Name)}
        for name in names - {"__all__"}:
            found.setdefault(name, []).append("/".join(parts))
    return found


# The playing table, its fields, its drawing on a screen and a game in play at it (`game.live.Table`): the only
# things the code calls a table.
PLAYING_TABLE = {"TableModel", "TableLayout", "table_layout", "table_rows_needed", "TABLE_FIELDS", "Table"}


def test_table_names_only_the_playing_table():
    # A data frame is a *_frame, printed text is aligned, a precomputed array is a lookup (docs/architecture.md).
    other = {name: where for name, where in defined_names().items()
             if re.search(r"(?:^|_)table|Table", name) and name not in PLAYING_TABLE}
    assert not other, other


# Names that mean the same kind of thing in each module that has one: its own output's columns, its routes.
PER_MODULE = {"COLUMNS", "TEXT_COLUMNS", "SUMMARY_COLUMNS", "routes"}


def test_a_name_means_one_thing():
    # Two modules defining one name either copy a thing (make it one) or mean two things (name them apart).
    twice = {name: where for name, where in defined_names().items() if len(where) > 1 and name not in PER_MODULE}
    assert not twice, twice


# The terminal's screen is the terminal drill's alone: the web and the analytics take the drill's defaults from
# drill.settings and its words from drill.teaching, so a server or a notebook never loads the screen.
SCREEN = "diavolo_stats.drill.screen"


def test_only_the_terminal_drill_imports_its_screen():
    users = set()
    for path, parts in modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                named = {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
            elif isinstance(node, ast.Import):
                named = {alias.name for alias in node.names}
            else:
                continue
            if SCREEN in named:  # also `from diavolo_stats.drill import screen`
                users.add("/".join(parts))
    assert users == {"drill/session.py"}


TESTS = Path(__file__).resolve().parent


@pytest.mark.parametrize("path", sorted([*TESTS.rglob("*.py"), *(TESTS.parent / "benchmarks").glob("*.py")]),
                         ids=lambda path: str(path.relative_to(TESTS.parent)))
def test_no_test_or_benchmark_imports_a_test_module_or_conftest(path):
    # What tests share lives in tests/helpers (imported as `helpers.<module>`) or in conftest.py's fixtures.
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
    wrong = sorted(name for name in names if any(part.startswith("test_") or part == "conftest"
                                                  for part in name.split(".")))
    assert not wrong, f"{path.name} imports {wrong}"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_imports() -> dict[str, set[str]]:
    """Each module of the package -> the package's modules it imports, at the top or inside a function."""
    paths = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph = {}
    for name, path in paths.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:  # the package has no relative
                found |= {f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in paths else node.module
                          for alias in node.names}
        graph[name] = {module for module in found if module in paths and module != name}
    return graph


def test_no_module_imports_relatively():
    # The layers and circles tests read absolute imports only: a relative one would pass them unseen.
    relative = [f"{'/'.join(parts)}:{node.lineno}" for path, parts in modules()
                for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                if isinstance(node, ast.ImportFrom) and node.level > 0]
    assert not relative, relative


def test_no_circle_of_imports_between_modules():
    # A circle (a imports b, b imports a, however far round) is hidden behind an import inside a function; the
    # layers test above sees packages only. Depth-first search for a way back to where it started.
    graph = module_imports()
    assert "diavolo_stats.core.variant" in graph["diavolo_stats.core.variant_file"]  # the graph is read
    circles = []
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        for imported in sorted(graph[module]):
            if imported in path:
                circles.append(path[path.index(imported):] + [imported])
            elif imported not in done:
                visit(imported, [*path, imported])
        done.add(module)

    for module in sorted(graph):
        if module not in done:
            visit(module, [module])
    assert not circles, "imports in a circle: " + "; ".join(" -> ".join(circle) for circle in circles[:5])


MAX_MODULE_LINES = 600


def test_no_module_is_over_600_lines():
    # A module is one concept a reader holds at once; past this many lines it holds two (split it along its seam).
    long = {"/".join(parts): lines for path, parts in modules()
            if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES}
    assert not long, long
