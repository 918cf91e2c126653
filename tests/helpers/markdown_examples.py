"""What the docs tests read in the manual's markdown: code blocks, inline code, command lines, flags, paths."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
DOCS = REPOSITORY / "docs"

FENCE = re.compile(r"^(?P<indent> *)(?P<fence>```+|~~~+)(?P<info>[^\n`]*)$")
INLINE_CODE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
# A path into the repository, as the manual names one: a top folder, then more.
REPOSITORY_PATH = re.compile(r"(?<![\w./-])((?:examples|data|docs|diavolo_stats|tests|benchmarks|notebooks)"
                             r"/[\w./-]*[\w/])")
FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")


@dataclass(frozen=True)
class Block:
    """A fenced code block: the file, the line its fence opens on, its info string and its text."""

    path: Path
    line: int
    info: str
    text: str

    @property
    def language(self) -> str:
        return self.info.split()[0] if self.info.split() else ""

    def option(self, name: str) -> str | None:
        match = re.search(rf'\b{name}="([^"]*)"', self.info)
        return match.group(1) if match else None

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(REPOSITORY)} line {self.line}"


def manual_files() -> list[Path]:
    """The README and every markdown page of the site."""
    return [REPOSITORY / "README.md", *sorted(DOCS.rglob("*.md"))]


def blocks(path: Path) -> list[Block]:
    found, lines = [], path.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        body, end = [], index + 1
        while end < len(lines) and not lines[end].strip().startswith(opening.group("fence")):
            body.append(lines[end][len(opening.group("indent")):])
            end += 1
        found.append(Block(path, index + 1, opening.group("info").strip(), "\n".join(body)))
        index = end + 1
    return found


def prose(path: Path) -> list[tuple[int, str]]:
    """(line number, line) of every line outside fenced code blocks."""
    lines, inside, fence = [], False, ""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        opening = FENCE.match(line)
        if not inside and opening:
            inside, fence = True, opening.group("fence")
        elif inside and line.strip().startswith(fence):
            inside = False
        elif not inside:
            lines.append((number, line))
    return lines


def inline_code(path: Path) -> list[tuple[int, str]]:
    return [(number, code) for number, line in prose(path) for code in INLINE_CODE.findall(line)]


def shell_commands(text: str) -> list[str]:
    """Each command of a shell line: split at `&&`, `;` and `|`, prompts and `.venv/bin/` removed."""
    commands = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith(("$ ", "% ")):
            line = line[2:]
        line = re.sub(r"(^|\s)#.*", "", line)  # a shell comment
        for part in re.split(r"&&|;|\|(?!\|)", line):
            part = re.sub(r"\s[12]?>\s*\S+", "", part).strip()  # redirections
            if part:
                commands.append(part)
    return commands


def diavolo_argv(command: str) -> list[str] | None:
    """The arguments after `diavolo` when `command` runs the diavolo command, else None."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    while words and "=" in words[0] and not words[0].startswith("-"):
        words = words[1:]  # VAR=value before the command
    if words and words[0] in ("diavolo", ".venv/bin/diavolo"):
        return words[1:]
    return None


def console_commands(block: Block) -> list[str]:
    """The commands of a console block: its `$ ` lines."""
    return [line[2:] for line in block.text.splitlines() if line.startswith(("$ ", "% "))]
