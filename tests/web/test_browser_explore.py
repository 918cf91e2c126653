"""The variant explorer in a real Chromium: the command editor's every change gives the exact odds of the variant
file the page shows, which reads back as that variant."""

from __future__ import annotations

from helpers.browser import Server, save_screenshot
from helpers.cli import REPO

from diavolo_stats.core.odds import exact_odds, fraction_text
from diavolo_stats.core.variant import Variant
from diavolo_stats.core.variant_file import read_variant, variant_from_document

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

EXAMPLES = REPO / "examples" / "variants"
NO_CLOSEST = ["highest-total", "lowest-total", "largest-spread", "most-odd", "highest-die"]


def shown_fractions(page) -> dict[str, str]:
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('#odds tbody tr')]
        .map((row) => [row.dataset.command, row.querySelector('.fraction').textContent]))""")


def exact_fractions(variant: Variant) -> dict[str, str]:
    return {command.value: fraction_text(tie) for command, tie in exact_odds(variant).tie_probability.items()}


def wait_ready(page) -> None:
    page.wait_for_function("() => document.body.dataset.state === 'ready'")


def shown_variant(page) -> Variant:
    return variant_from_document(tomllib.loads(page.locator("#variant-file").inner_text()))


def test_a_command_built_in_the_editor_gets_its_exact_odds_and_the_file_that_reproduces_them(server, page, tmp_path):
    page.goto(server.url + "explore")
    wait_ready(page)
    assert shown_fractions(page) == exact_fractions(Variant())
    assert "closest simulated" in page.locator("#overall").inner_text()  # closest is on the box's die
    page.fill("#die tr[data-command=closest] input", "0")
    wait_ready(page)
    box_overall = page.locator("#overall").get_attribute("data-fraction")
    assert box_overall == fraction_text(exact_odds(Variant(commands=tuple(NO_CLOSEST))).overall_tie_probability)

    page.click("#add-command")
    card = page.locator("#defined .command").last
    card.locator("[data-key=name]").fill("most-sixes")
    card.locator("[data-key=label]").fill("most sixes")
    first = card.locator("[data-key=first]")
    first.locator("[data-key=figure]").select_option("count:=V")
    first.locator("[data-key=parameter]").fill("6")
    card.locator("[data-action=add-tie-break]").click()
    tie_break = card.locator(".then li").last
    tie_break.locator("[data-key=figure]").select_option("sum")
    tie_break.locator("[data-key=wins]").select_option("lowest")
    card.locator("legend + label input").fill("2")
    wait_ready(page)

    expected = variant_from_document({"command_die": [*NO_CLOSEST, "most-sixes", "most-sixes"], "commands": {
        "most-sixes": {"label": "most sixes", "figure": "count:=6", "then": [{"figure": "sum", "wins": "lowest"}]}}})
    assert shown_variant(page) == expected
    assert "[commands.most-sixes]" in page.locator("#variant-file").inner_text()
    assert shown_fractions(page) == exact_fractions(expected)
    assert page.locator("#odds tr[data-command=most-sixes] td").first.inner_text() == "most sixes"
    overall = page.locator("#overall").get_attribute("data-fraction")
    assert overall == fraction_text(exact_odds(expected).overall_tie_probability) != box_overall
    assert page.locator("#command-line").inner_text() == "diavolo odds --variant variant.toml"
    with page.expect_download() as download:
        page.click("#download")
    assert download.value.suggested_filename == "variant.toml"
    assert read_variant(download.value.path()) == expected

    # white rolls four dice of its own faces: uneven colors, each with its own chance
    page.fill("#color-dice tr[data-color=white] [data-key=count]", "4")
    page.fill("#color-dice tr[data-color=white] [data-key=faces]", "0,1,1,2,2,6")
    wait_ready(page)
    assert shown_variant(page).counts == (3, 3, 4)
    assert shown_fractions(page) == exact_fractions(shown_variant(page))
    page.set_viewport_size({"width": 1280, "height": 1500})
    save_screenshot(page, tmp_path, "explore.png")


def test_a_mistake_in_the_editor_is_named_with_the_variant_files_message_on_its_control(server, page):
    page.goto(server.url + "explore")
    wait_ready(page)
    page.click("#add-command")
    card = page.locator("#defined .command").last
    card.locator("[data-key=first] [data-key=figure]").select_option("count:=V")
    card.locator("[data-key=first] [data-key=parameter]").fill("7")
    page.wait_for_function("() => document.body.dataset.state === 'error'")
    assert page.locator("#explore-error").inner_text().startswith(
        "commands.my-command.figure: count:=7: no die shows 7 (faces 1, 2, 3, 4, 5, 6)")
    assert card.locator("[data-key=first] [data-key=parameter]").get_attribute("aria-invalid") is not None
    assert page.locator("#odds tbody tr").count() == 0 and page.locator("#variant-file").inner_text() == ""
    page.fill("input[name=dice_per_color]", "0")
    page.wait_for_function("() => document.getElementById('explore-error').textContent.startsWith('dice_per_color')")
    assert page.locator("#explore-error").inner_text().startswith("dice_per_color: must be a whole number from 1 to 12")
    page.fill("input[name=dice_per_color]", "3")
    card.locator("[data-key=first] [data-key=parameter]").fill("6")
    wait_ready(page)
    page.fill("#die tr[data-command=most-odd] input", "1.5")  # a count the file cannot hold: named, not dropped
    page.wait_for_function("() => document.body.dataset.state === 'error'")
    assert page.locator("#explore-error").inner_text() == (
        "command_die: the faces of most-odd on the die must be a whole number of 0 or more, got 1.5")
    assert page.locator("#die tr[data-command=most-odd] input").get_attribute("aria-invalid") is not None
    page.fill("#die tr[data-command=most-odd] input", "1")
    wait_ready(page)
    page.click("#add-command")
    page.locator("#defined .command").last.locator("[data-key=name]").fill("my-command")  # the first one's name
    page.wait_for_function("() => document.body.dataset.state === 'error'")
    assert page.locator("#explore-error").inner_text() == (
        'variant: the key "my-command" is given twice in one object; each key once')


def test_odds_that_come_after_the_form_changed_again_are_never_shown_as_its_odds(server, page):
    # The page's clock stands still: the editor's pause after a change ends only when the test moves it on.
    page.clock.install()
    page.goto(server.url + "explore")
    wait_ready(page)
    before = shown_fractions(page)
    held = []
    page.route("**/api/explore", lambda route: held.append(route))
    page.fill("input[name=dice_per_color]", "3")
    with page.expect_request("**/api/explore"):
        page.clock.run_for(1000)
    page.fill("input[name=dice_per_color]", "4")  # while the odds of three dice are on their way
    held.pop().continue_()
    # The odds of three dice come and are dropped: the page still waits for the form as it is.
    page.wait_for_function("() => document.body.dataset.dropped === '1'")
    assert page.evaluate("() => document.body.dataset.state") == "updating"
    assert shown_fractions(page) == before  # the odds of the form before the changes, kept
    page.unroute("**/api/explore")
    page.clock.run_for(1000)
    wait_ready(page)
    assert shown_variant(page).dice_per_color == 4
    assert shown_fractions(page) == exact_fractions(shown_variant(page))


def test_serve_with_a_variant_file_opens_the_explorer_on_it(browser, log_path):
    path = EXAMPLES / "uneven-colors.toml"
    server = Server(log_path, 0, "--variant", str(path))
    page = browser.new_page()
    try:
        page.goto(server.url + "explore")
        wait_ready(page)
        variant = read_variant(path)
        assert shown_variant(page) == variant
        assert page.locator("input[name=name]").input_value() == "white handicap"
        assert page.locator("#color-dice tr[data-color=white] [data-key=faces]").input_value() == "0,1,1,2,2,3"
        assert shown_fractions(page) == exact_fractions(variant)
        assert page.locator("#command-line").inner_text().startswith("diavolo odds --variant white-handicap.toml")
    finally:
        page.close()
        server.stop()
