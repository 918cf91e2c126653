"""The page scripts' shared modules, run in the real Chromium on a served page: the requests' one policy
(which answers are asked again, how long it waits) and the library's numbers and words the pages draw."""

from __future__ import annotations

import json

import pytest

from diavolo_stats.core.variant import Variant
from diavolo_stats.drill.teaching import command_words
from diavolo_stats.game.engine import MAX_GEMS

pytestmark = pytest.mark.browser


def served_page(page, server, path: str = "/play"):
    page.goto(server.url.rstrip("/") + path)
    return page


def test_the_retry_waits_are_the_servers_retry_after_capped_else_a_second(server, page):
    served_page(page, server)
    waits = page.evaluate("""async () => {
        const { retryDelay } = await import('/static/request.js');
        const reply = (headers) => new Response(null, { status: 503, headers });
        return [retryDelay(null), retryDelay(reply({})), retryDelay(reply({ 'Retry-After': '2' })),
                retryDelay(reply({ 'Retry-After': '3600' })), retryDelay(reply({ 'Retry-After': 'soon' }))];
    }""")
    assert waits == [1000, 1000, 2000, 30000, 1000]


def test_a_busy_or_unreachable_server_is_asked_again_and_a_refusal_is_final(server, page):
    served_page(page, server)
    # Each probe's answers, in turn: a status (and body), or None for a request that never reaches the server.
    plans = {"busy": [(503, {}), (429, {}), (200, {"n": 1})], "away": [None, (200, {"n": 2})],
             "refused": [(400, {"error": "answer: must be a color", "field": "answer"})],
             "broken": [(500, {"error": "boom"})]}
    asked = {name: 0 for name in plans}

    def answer(route):
        name = route.request.url.rsplit("/", 1)[1]
        plan = plans[name][asked[name]]
        asked[name] += 1
        if plan is None:
            route.abort()
        else:
            route.fulfill(status=plan[0], content_type="application/json", body=json.dumps(plan[1]),
                          headers={"Retry-After": "0"})

    page.route("**/probe/*", answer)
    results = page.evaluate("""async (names) => {
        const { requestJson, Refusal } = await import('/static/request.js');
        const out = {};
        for (const name of names) {
          let waits = 0;
          try {
            out[name] = { answer: await requestJson(`/probe/${name}`, { payload: {}, onWait: () => { waits += 1; } }) };
          } catch (error) {
            out[name] = { refusal: error instanceof Refusal, message: error.message, status: error.status,
                          field: error.field ?? null };
          }
          out[name].waits = waits;
        }
        return out;
    }""", list(plans))
    assert results["busy"] == {"answer": {"n": 1}, "waits": 2}
    assert results["away"] == {"answer": {"n": 2}, "waits": 1}
    assert results["refused"] == {"refusal": True, "message": "answer: must be a color", "status": 400,
                                  "field": "answer", "waits": 0}
    assert results["broken"] == {"refusal": True, "message": "boom", "status": 500, "field": None, "waits": 0}
    assert asked == {"busy": 3, "away": 2, "refused": 1, "broken": 1}


def test_a_request_no_longer_wanted_stops_being_asked(server, page):
    served_page(page, server)
    asked = []
    page.route("**/probe/gone",
               lambda route: (asked.append(1), route.fulfill(status=503, headers={"Retry-After": "0"})))
    outcome = page.evaluate("""async () => {
        const { requestJson, Abandoned } = await import('/static/request.js');
        let wanted = true;
        try {
          await requestJson('/probe/gone', { wanted: () => wanted, onWait: () => { wanted = false; } });
          return 'answered';
        } catch (error) {
          return error instanceof Abandoned ? 'abandoned' : error.message;
        }
    }""")
    assert outcome == "abandoned" and len(asked) == 1


def test_the_seats_and_the_command_die_draw_the_librarys_gems_and_words(server, page):
    served_page(page, server)
    drawn = page.evaluate("""async (words) => {
        const seats = await import('/static/seats.js');
        const table = await import('/static/table.js');
        return { gems: [0, 1, 5].map(seats.gemsText),
                 banners: Object.values(words).map((each) => table.commandBanner(each)) };
    }""", command_words(Variant()))
    assert drawn["gems"][0] == "out"
    assert [len(text) for text in drawn["gems"][1:]] == [MAX_GEMS, MAX_GEMS]  # a dot for each gem a seat may hold
    assert drawn["gems"][1].count("●") == 1
    for banner, words in zip(drawn["banners"], command_words(Variant()).values(), strict=True):
        assert banner.endswith(words["label"]) and words["symbol"] in banner
