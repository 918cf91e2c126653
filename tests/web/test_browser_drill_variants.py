"""The browser drill of each example variant file, in a real Chromium against `diavolo serve --variant FILE`: the
page shows the file's commands by their label, and every trial reaches the log with its command, dice and rules."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from helpers.browser import Server, wait_for_stimulus

from diavolo_stats.core.rules import resolve
from diavolo_stats.core.variant_file import read_variant
from diavolo_stats.drill.log import load_logs
from diavolo_stats.drill.log.rules import played_variant
from diavolo_stats.drill.teaching import command_codes
from diavolo_stats.web.trials import MIN_LATENCY_MS

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "variants"
SERVED_FILES = sorted(path.stem for path in EXAMPLES.glob("*.toml") if path.stem not in ("broken", "box"))
TRIALS = 4


@contextlib.contextmanager
def served_drill(page, log, name: str, trials: int):
    """`page` (the fixture: its script errors are checked after the test) on the drill page of `diavolo serve
    --variant` the example file `name`, set up for `trials` trials of player Dee, not yet started; the server is
    stopped once the session's summary is shown."""
    server = Server(log, 0, "--variant", str(EXAMPLES / f"{name}.toml"))
    try:
        page.goto(server.url.rstrip("/") + "/drill?foreperiod_ms=30,60&feedback_ms=0")
        page.fill("input[name=player]", "Dee")
        page.fill("input[name=trials]", str(trials))
        yield page
        page.wait_for_function("() => document.querySelector('#summary-table tbody tr') !== null", timeout=30_000)
    finally:
        server.stop()


@pytest.mark.browser
@pytest.mark.parametrize("name", SERVED_FILES)
def test_drilling_the_served_file_logs_rows_of_its_rules_and_shows_its_labels(page, tmp_path, name):
    variant = read_variant(EXAMPLES / f"{name}.toml")
    log = tmp_path / "drills.csv"
    with served_drill(page, log, name, TRIALS):
        page.select_option("select[name=variant]", "served")
        page.click("button.start")
        banners, dies = [], []
        for _ in range(TRIALS):
            onset = wait_for_stimulus(page)
            page.wait_for_function("at => performance.now() >= at", arg=onset + MIN_LATENCY_MS + 20)
            banners.append(page.locator("#command-banner").inner_text())
            dies.append(page.locator(".command-die text").first.text_content())
            page.keyboard.press("g")
    frame = load_logs([log])
    assert len(frame) == TRIALS
    assert {played_variant(cell) for cell in frame["variant"]} == {variant}
    codes = command_codes(variant)
    for (_, row), banner, symbol in zip(frame.iterrows(), banners, dies, strict=True):
        command = variant.command(row["command"])
        assert banner.endswith(command.label), (banner, command)  # the label the server sent
        if not command.builtin:  # on the command die: the code the terminal shows too
            assert symbol == codes[command] and banner == f"{codes[command]} {command.label}"
        dice, positions = json.loads(row["dice"]), json.loads(row["positions"])
        assert [len(dice[color]) for color in variant.colors] == list(variant.counts)
        assert all(set(dice[c]) <= set(faces) for c, faces in zip(variant.colors, variant.color_faces))
        assert row["expected"] == resolve(variant, command, dice, positions).answer
    assert (frame["interface"] == "browser").all() and (frame["answer"] == "grey").all()


@pytest.mark.browser
def test_a_fourth_color_is_painted_in_its_color_and_answered_by_its_own_key(page, tmp_path):
    from diavolo_stats.drill.looks import DIE_LOOKS

    log = tmp_path / "drills.csv"
    green = "rgb({}, {}, {})".format(*DIE_LOOKS["green"].background)
    with served_drill(page, log, "four-colors", 1):
        assert page.locator("input[name=key_served_green]").input_value() == "e"  # g is grey's
        page.click("button.start")
        onset = wait_for_stimulus(page)
        faces = page.eval_on_selector_all(".die-green .face", "nodes => nodes.map(n => getComputedStyle(n).fill)")
        button = page.eval_on_selector("button.answer-green", "node => getComputedStyle(node).backgroundColor")
        page.wait_for_function("at => performance.now() >= at", arg=onset + MIN_LATENCY_MS + 20)
        page.keyboard.press("e")
    assert faces == [green] * 3 and button == green  # the terminal's green, on the table and on its button
    assert load_logs([log])["answer"].tolist() == ["green"]
