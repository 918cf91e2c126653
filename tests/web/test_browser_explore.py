"""The variant explorer in a real Chromium: the table follows the controls, with the exact odds."""

from __future__ import annotations

from diavolo_stats.core.odds import exact_odds, fraction_text
from diavolo_stats.core.variant import Variant
from web.test_browser_drill import save_screenshot


def shown_fractions(page) -> dict[str, str]:
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('#odds tbody tr')]
        .map((row) => [row.dataset.command, row.querySelector('.fraction').textContent]))""")


def exact_fractions(variant: Variant) -> dict[str, str]:
    return {command.value: fraction_text(tie) for command, tie in exact_odds(variant).tie_probability.items()}


def test_changing_dice_per_color_updates_the_table_to_the_exact_odds(server, page, tmp_path):
    page.goto(server.url + "explore")
    page.wait_for_function("() => document.body.dataset.state === 'ready'")
    assert shown_fractions(page) == exact_fractions(Variant())
    assert "closest: ties in" in page.locator("#closest").inner_text()
    page.fill("input[name=dice_per_color]", "2")
    page.wait_for_function("() => document.body.dataset.state === 'ready'")
    assert shown_fractions(page) == exact_fractions(Variant(dice_per_color=2))
    command_line = page.locator("#command-line").inner_text()
    assert "diavolo odds --colors black,red,white --dice-per-color 2 --sides 6" in command_line
    page.uncheck("input[value=closest]")
    page.fill("input[name=sides]", "8")
    page.wait_for_function("() => document.body.dataset.state === 'ready'")
    assert shown_fractions(page) == exact_fractions(Variant(dice_per_color=2, sides=8))
    assert page.locator("#chart rect").count() == 5  # one bar per value command, closest off
    page.check("input[value=closest]")
    page.fill("input[name=dice_per_color]", "3")
    page.fill("input[name=sides]", "6")
    page.wait_for_function("() => document.body.dataset.state === 'ready'")
    page.set_viewport_size({"width": 1200, "height": 1000})
    save_screenshot(page, tmp_path, "explore.png")


def test_a_variant_not_allowed_is_named_on_the_page(server, page):
    page.goto(server.url + "explore")
    page.wait_for_function("() => document.body.dataset.state === 'ready'")
    page.fill("input[name=dice_per_color]", "0")
    page.wait_for_function("() => document.body.dataset.state === 'error'")
    assert page.locator("#explore-error").inner_text().startswith("dice_per_color: ")

