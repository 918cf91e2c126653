"""Every TOML file the project reads (variant, player, dice files) is bounded before it is parsed: a regular file,
at most 1 MiB read, nesting and numbers bounded, each failure one line and exit 2, and 400 on the web."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from diavolo_stats.cli import main
from diavolo_stats.errors import InputError
from diavolo_stats.toml_files import MAX_TOML_BYTES, MAX_TOML_DEPTH, parse_toml, read_toml
from diavolo_stats.validation import MAX_DIGITS

NESTED = "faces = " + "[" * 5_000 + "]" * 5_000 + "\n"  # 10 KB: Python's parser recursed to a RecursionError
HUGE_NUMBER = "dice_per_color = " + "7" * 5_000 + "\n"  # its int() refused it with a ValueError
DOTTED = "a" + ".a" * 100_000 + " = 1\n"  # its dotted keys cost the square of their parts
SPARSE_BYTES = 30 * 2**30


def hostile_files(folder: Path) -> dict[str, Path]:
    """Each kind of file a TOML reader must refuse, by what it is; the sparse file takes no disk."""
    files = {"nested": folder / "nested.toml", "huge-number": folder / "huge.toml", "dotted": folder / "dotted.toml",
             "dev-zero": folder / "zero.toml", "fifo": folder / "fifo.toml", "folder": folder / "folder.toml",
             "sparse": folder / "sparse.toml"}
    files["nested"].write_text(NESTED)
    files["huge-number"].write_text(HUGE_NUMBER)
    files["dotted"].write_text(DOTTED)
    files["dev-zero"].symlink_to("/dev/zero")
    os.mkfifo(files["fifo"])
    files["folder"].mkdir()
    with open(files["sparse"], "wb") as stream:
        stream.truncate(SPARSE_BYTES)
    return files


@pytest.fixture
def hostile(tmp_path) -> dict[str, Path]:
    return hostile_files(tmp_path)


NOT_REGULAR = "is not a regular file (a FIFO, a device or a socket)"
WHY = {"nested": f"nest more than {MAX_TOML_DEPTH} deep", "huge-number": f"at most {MAX_DIGITS} digits",
       "dotted": f"nest at most {MAX_TOML_DEPTH} deep", "dev-zero": NOT_REGULAR,
       "fifo": NOT_REGULAR, "folder": "is a folder, not a file", "sparse": f"at most {MAX_TOML_BYTES:,} bytes"}


def bytes_read() -> int:
    """Bytes this process has read through read(2) and the like (Linux's /proc/self/io rchar)."""
    fields = dict(line.split(": ") for line in Path("/proc/self/io").read_text().splitlines())
    return int(fields["rchar"])


@pytest.mark.timeout(30)  # a FIFO once blocked the open until someone wrote to it
@pytest.mark.parametrize("kind", list(WHY))
def test_a_hostile_file_is_refused_naming_the_file_and_why(hostile, kind):
    with pytest.raises(InputError) as refused:
        read_toml(hostile[kind])
    assert str(refused.value).startswith(f"{hostile[kind]}: ") and WHY[kind] in str(refused.value)


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="counts bytes read through /proc/self/io")
def test_a_30_gb_file_is_refused_having_read_1_mib_and_one_byte(hostile):
    before = bytes_read()
    with pytest.raises(InputError, match="at most 1,048,576 bytes"):
        read_toml(hostile["sparse"])
    assert bytes_read() - before <= MAX_TOML_BYTES + 1 + 64 * 1024  # the file's 1 MiB + 1, and /proc itself


def test_a_file_of_exactly_1_mib_is_read(tmp_path):
    path = tmp_path / "big.toml"
    line = "# padding\n"
    path.write_text('name = "big"\n' + line * ((MAX_TOML_BYTES - 13) // len(line)))
    path.write_text(path.read_text() + " " * (MAX_TOML_BYTES - path.stat().st_size))
    assert path.stat().st_size == MAX_TOML_BYTES and read_toml(path) == {"name": "big"}


@pytest.mark.parametrize(("text", "document"), [
    # strings and comments are set aside before the checks: brackets, dots and digits in them count for nothing
    ('name = "[[[[[[[[[[ 1.2.3.4.5.6.7.8.9.10 ' + "9" * 60 + '"  # [[[[[[[[[[\n', None),
    ("notes = '''\n[[[[[[[[[[[\n'''\nlater = 1\n", None),
    ('"q" = """a ""\\"""" \n', None),
    ("faces = [[[[[[[[1]]]]]]]]\n", None),  # arrays 8 deep: at the limit
    ("[a.b.c.d.e.f.g]\nh = 1\n", None),  # tables 8 deep
    ("big = " + "9" * MAX_DIGITS + "\nhex = 0x" + "f" * MAX_DIGITS + "\nwhen = 1979-05-27T07:32:00.999Z\n", None),
])
def test_what_is_within_the_limits_reads_as_python_reads_it(text, document):
    import tomllib

    assert parse_toml(text, "f.toml") == tomllib.loads(text)


@pytest.mark.parametrize(("text", "why"), [
    ("faces = [[[[[[[[[1]]]]]]]]]\n", "line 1: arrays and tables nest more than 8 deep"),
    ("a = {b = {c = {d = {e = {f = {g = {h = {i = {j = 1}}}}}}}}}\n", "nest more than 8 deep"),
    ("[a.b.c.d.e.f.g]\nh.i.j = 1\n", "tables and arrays nest 9 deep; at most 8"),
    ("x = 1\n\ny = '''\n\n'''\nbig = -" + "1" * (MAX_DIGITS + 1) + "\n", "line 6: a number of 41 digits"),
    ("hex = 0x" + "f" * (MAX_DIGITS + 1) + "\n", "a number of 41 digits"),
    ("name = 'a'\x00\n", "not a text file"),
])
def test_past_the_limits_is_one_line_naming_the_line(text, why):
    with pytest.raises(InputError, match=why):
        parse_toml(text, "f.toml")


COMMANDS = {
    "odds": ["odds", "--variant", "{file}"],
    "simulate": ["simulate", "--variant", "{file}", "--rounds", "1000"],
    "sweep": ["sweep", "--variant", "{file}"],
    "game --variant": ["game", "--players", "preset:novice", "preset:expert", "--variant", "{file}"],
    "game --players": ["game", "--players", "preset:novice", "{file}"],
    "drill": ["drill", "--player", "Ann", "--variant", "{file}"],
    "serve": ["serve", "--port", "0", "--variant", "{file}"],
    "minodice --dice": ["minodice", "odds", "--dice", "{file}"],
}


@pytest.mark.timeout(120)
@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_command_refuses_every_hostile_toml_file_in_one_line_with_exit_2(command, hostile, tmp_path, capsys,
                                                                                monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DIAVOLO_LOG", str(tmp_path / "log.csv"))
    for kind, path in hostile.items():
        argv = [str(path) if arg == "{file}" else arg for arg in COMMANDS[command]]
        try:
            status = main(argv)
        except SystemExit as exit_:
            status = exit_.code
        out, err = capsys.readouterr()
        assert status == 2 and err.count("\n") == 1 and "Traceback" not in err, (kind, status, err)
        assert err.startswith("diavolo: error: ") and str(path) in err and WHY[kind] in err, (kind, err)
