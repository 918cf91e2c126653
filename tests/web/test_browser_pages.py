"""Every page at a laptop's size and a phone's: nothing scrolls sideways, headings are words, figures are right.

At 1280x800 and at 390x844 (a touch screen, as a phone is), each page of
`diavolo serve` is opened on the shipped sample log and checked: the page is
no wider than the screen (`document.documentElement.scrollWidth`), and no
heading a player reads (titles, table headings, labels) contains a field
name of the log or of its summaries. The progress page's figures are
compared with the library's own summary of the same log.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest
from helpers.browser import Server, save_screenshot, wait_for_stimulus, wait_for_summary
from helpers.cli import REPO

from diavolo_stats.analytics import summaries, wording
from diavolo_stats.analytics.progress import WEEK
from diavolo_stats.analytics.tie_frequency import FRAME_COLUMNS
from diavolo_stats.core.table_model import TableModel
from diavolo_stats.drill.log import COLUMNS, load_logs
from diavolo_stats.drill.summary import SUMMARY_COLUMNS

SAMPLE = REPO / "data" / "sample_drills.csv"
PLAYER = "synthetic-novice"
SIZES = {"laptop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
NAV = re.findall(r'<a href="(/[^"]*)"', (REPO / "diavolo_stats/web/templates/base.html").read_text(encoding="utf-8"))
PAGES = (*NAV, f"/me?player={PLAYER}", f"/report?player={PLAYER}")
"""Every page the top bar links to (a page added to it is checked too), and a player's progress and report."""
FIELD_NAMES = sorted({name for name in (*COLUMNS, *summaries.SUMMARY_FIGURES, *FRAME_COLUMNS, *SUMMARY_COLUMNS)
                      if "_" in name})
"""Names a script reads and a person should not have to: every one with an underscore (`latency_ms`); the
plain words among them (`player`, `trials`) are words."""
HEADINGS = "h1, h2, h3, th, caption, legend, label, summary, button, dt"


@pytest.fixture(scope="module")
def sample_server(tmp_path_factory):
    log = tmp_path_factory.mktemp("pages") / "drills.csv"
    shutil.copy(SAMPLE, log)
    running = Server(log)
    yield running
    running.stop()


@pytest.fixture(params=list(SIZES))
def sized_page(request, browser):
    phone = request.param == "phone"
    context = browser.new_context(viewport=SIZES[request.param], has_touch=phone, is_mobile=phone)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(error))
    yield request.param, page
    context.close()
    assert not errors, f"errors in the page's scripts: {errors}"


def check_fits_and_reads(page, size: str, where: str) -> None:
    width = SIZES[size]["width"]
    scroll_width = page.evaluate("document.documentElement.scrollWidth")
    assert scroll_width <= width, f"{where} at {size} size is {scroll_width} px wide, the screen {width} px"
    headings = page.evaluate(f"""() => [...document.querySelectorAll({HEADINGS!r})]
        .filter((element) => element.offsetParent !== null).map((element) => element.innerText)""")
    assert headings, f"{where}: no heading to read"
    named = [(heading, name) for heading in headings for name in FIELD_NAMES if name in heading]
    assert not named, f"{where}: headings with field names: {named}"


@pytest.mark.parametrize("path", PAGES)
def test_every_page_fits_the_screen_and_its_headings_are_words(sample_server, sized_page, path, tmp_path):
    size, page = sized_page
    answer = page.goto(sample_server.url.rstrip("/") + path)
    assert answer.ok, (path, answer.status)
    if path == "/explore":
        page.wait_for_function("() => document.body.dataset.state === 'ready'")
    page.wait_for_load_state("networkidle")
    check_fits_and_reads(page, size, path)


def test_the_session_summary_fits_the_screen(sample_server, sized_page):
    size, page = sized_page
    page.goto(sample_server.url.rstrip("/") + "/drill?foreperiod_ms=30,60&feedback_ms=0")
    page.fill("input[name=player]", "Kim")
    page.fill("input[name=trials]", "2")
    page.click("button.start")
    for _ in range(2):
        onset = wait_for_stimulus(page)
        check_fits_and_reads(page, size, "a roll of the drill")
        lines = page.evaluate("""() => { const range = document.createRange();
            range.selectNodeContents(document.querySelector('#progress')); return range.getClientRects().length; }""")
        assert lines == 1, "'trial 1 of 2' wraps"
        # every die of a roll at one size, never under the model's die on the drawn felt (they may shrink from
        # the table's size so that none covers another)
        dice_mm = page.evaluate("""() => { const svg = document.querySelector('#dice').ownerSVGElement;
            const per_mm = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
            return [...document.querySelectorAll('#dice .die > rect')].map(
                (rect) => rect.getBoundingClientRect().width / per_mm); }""")
        assert dice_mm and max(dice_mm) - min(dice_mm) < 0.01, dice_mm
        assert round(min(dice_mm), 2) >= TableModel().die_mm, dice_mm  # (to the 1/100 mm floating point keeps)
        # an answer within 100 ms of the roll is no reading of it, and the server refuses it: wait past that
        page.evaluate("target => { while (performance.now() < target) {} }", onset + 300)
        page.click("#answers button.answer-grey")
    wait_for_summary(page)
    check_fits_and_reads(page, size, "the session summary")
    page.click("#progress-link")
    page.wait_for_url("**/me?player=Kim")
    assert page.locator("h1").inner_text() == "Kim: your progress"


def test_the_progress_page_shows_the_librarys_summary_of_the_log(sample_server, sized_page, tmp_path):
    size, page = sized_page
    page.goto(sample_server.url.rstrip("/") + f"/me?player={PLAYER}")
    drills = load_logs([SAMPLE])
    mine = drills[drills["player"] == PLAYER]
    curve = summaries.learning_curve(mine, fit=False)
    week = summaries.summarize(mine[mine["timestamp"] > mine["timestamp"].max() - WEEK], by=("player",), fit=False)
    expected = {
        "last session": (curve["median_latency_ms"].iloc[-1], curve["accuracy"].iloc[-1]),
        "last 7 days": (week["median_latency_ms"].iloc[0], week["accuracy"].iloc[0]),
    }
    for period, (median_ms, accuracy) in expected.items():
        card = page.locator(f'section.headline[data-period="{period}"]')
        assert card.locator('[data-figure="median"]').inner_text() == wording.milliseconds(median_ms)
        assert card.locator('[data-figure="accuracy"]').inner_text() == wording.percent(accuracy)
        big = card.locator('[data-figure="median"]').evaluate("figure => parseFloat(getComputedStyle(figure).fontSize)")
        assert big >= 2 * page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)")
    # One chart, fetched after the page in the layout of its screen: the stacked one on a phone.
    page.wait_for_function("document.querySelector('img.chart').complete")
    width, height, source = page.locator("img.chart").evaluate("i => [i.naturalWidth, i.naturalHeight, i.currentSrc]")
    phone = size != "laptop"
    assert ("layout=narrow" if phone else "layout=wide") in source and (height > width) == phone
    spots = page.locator("ul.weak-spots li").all_inner_texts()
    assert spots and all(re.search(r"\(\d[\d,]*-\d[\d,]* (ms|%)\)", spot) for spot in spots)
    # By roll type: the reading model's sentences, each with its interval and the answers it rests on.
    by_roll = page.locator("ul.roll-weak-spots li").all_inner_texts()
    assert by_roll and all(re.search(r"\(\d[\d,]*-\d[\d,]* (ms|%)\).*from \d+ of your answers\.$", spot)
                           for spot in by_roll)
    save_screenshot(page, tmp_path, "progress.png" if size == "laptop" else "progress-phone.png")
    page.click("a.button.start")
    page.wait_for_url("**/drill?**")
    assert page.locator("input[name=player]").input_value() == PLAYER
    assert page.locator("input[name=adaptive]").is_checked()


def test_the_explorer_keeps_long_fractions_in_their_cells_and_clears_a_refused_variant(sample_server, sized_page):
    size, page = sized_page
    page.goto(sample_server.url.rstrip("/") + "/explore")
    page.wait_for_function("() => document.body.dataset.state === 'ready'")
    page.fill("#die tr[data-command=closest] input", "0")
    page.fill("input[name=dice_per_color]", "12")
    page.fill("input[name=faces]", ",".join(map(str, range(1, 101))))
    page.wait_for_function("() => document.body.dataset.state === 'ready'")
    fractions = page.locator("#odds td.fraction").evaluate_all(
        "cells => cells.map((cell) => [cell.textContent.length, cell.scrollWidth, cell.clientWidth])")
    assert max(length for length, _, _ in fractions) > 60
    assert all(scroll_width <= client_width for _, scroll_width, client_width in fractions), fractions
    check_fits_and_reads(page, size, "the explorer with 137-digit fractions")
    page.click("#add-command")
    check_fits_and_reads(page, size, "the explorer's command editor")
    page.fill("input[name=dice_per_color]", "0")
    page.wait_for_function("() => document.body.dataset.state === 'error'")
    error = page.locator("#explore-error").inner_text()
    assert error.startswith("dice_per_color: must be a whole number from 1 to 12")
    assert page.locator("#odds tr").count() == 0 and page.locator("#chart *").count() == 0
    assert page.locator("#command-line").inner_text() == "" and page.locator("#variant-file").inner_text() == ""
    invalid = page.locator("[aria-invalid]").evaluate_all("inputs => inputs.map((input) => input.name)")
    assert invalid == ["dice_per_color"]


@pytest.fixture(scope="module")
def manual_site(tmp_path_factory):
    """The manual built strictly (its console examples run: a minute or two, the suite's longest test, which
    tests/conftest.py therefore starts first); the folder of the site."""
    site = tmp_path_factory.mktemp("manual") / "site"
    build = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)], cwd=REPO,
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-2000:]
    return site


@pytest.mark.slow  # builds the whole manual
@pytest.mark.timeout(1200)  # pytest's guard against a hang (300 s), which the build passes on a busy machine
def test_search_works_in_the_manual_opened_from_disk_and_its_pages_fit_a_phone(browser, manual_site):
    site = manual_site
    assert "https://" not in " ".join(re.findall(r'<script src="([^"]*)"', (site / "index.html").read_text()))
    context = browser.new_context(viewport={"width": 1280, "height": 800}, offline=True)
    page = context.new_page()
    try:
        page.goto((site / "index.html").as_uri())
        page.keyboard.press("s")  # Material's shortcut to the search box
        page.wait_for_function("() => document.activeElement.classList.contains('md-search__input')")
        page.keyboard.type("anticipation")
        page.wait_for_selector(".md-search-result__item")
        titles = page.locator(".md-search-result__item").all_inner_texts()
    finally:
        context.close()
    assert any("anticipation" in title.lower() for title in titles), titles
    phone = browser.new_context(viewport=SIZES["phone"], has_touch=True, is_mobile=True, offline=True)
    page = phone.new_page()
    try:
        for html in sorted(site.rglob("*.html")):
            page.goto(html.as_uri())
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= SIZES["phone"]["width"], f"{html.relative_to(site)} is {width} px wide on a phone"
    finally:
        phone.close()
