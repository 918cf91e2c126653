"""How exactly the browser drill times a key, and how many trials a second the server logs.

Latency: the real `diavolo serve` and the browser drill in headless system
Chromium. For each of --keys rolls, the harness waits until the page shows
the roll (`data-state=stimulus`, onset in `data-onset`), busy-waits inside the
page until `onset + delay` (delay uniform in 300..900 ms), then sends the key
through the DevTools protocol (`Input.dispatchKeyEvent`). The error is the
logged `latency_ms` minus the intended delay: median, 95th percentile and
standard deviation. Beside it, the same harness on a bare page that only
records a key's `timeStamp` (error: timeStamp minus the intended moment): the
floor of the harness itself, measured in the same run. Targets: median within
1 ms of the floor's, standard deviation under 2 ms.

What neither figure sees: the display's own delay (refresh and pixel
response) and the keyboard's; headless Chromium paints no screen at all.

Load: --clients concurrent clients post trials to `POST /api/trials` for
--seconds on loopback; every tenth post resends an earlier trial (as a page
whose answer was lost does). Each row is fsynced before its answer. Prints
rows per second and checks the log: every acknowledged trial exactly once.

The machine may be shared: the load average is printed with the figures.

Usage: python benchmarks/bench_browser_latency.py [--keys 100] [--clients 20] [--seconds 10] [--seed 1]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from helpers.browser import Server, launch_chromium, press_at, start_drill, wait_for_stimulus  # noqa: E402

from diavolo_stats.drill.log import load_logs  # noqa: E402

TARGET_MEDIAN_OVER_FLOOR_MS = 1.0
TARGET_SD_MS = 2.0
BARE_PAGE = """<!DOCTYPE html><body><script>
window.stamps = [];
addEventListener('keydown', (event) => stamps.push(event.timeStamp));
</script></body>"""


def figures(errors: np.ndarray) -> dict:
    return {"median": float(np.median(errors)), "p95": float(np.percentile(errors, 95)),
            "sd": float(np.std(errors, ddof=1)), "min": float(errors.min()), "max": float(errors.max())}


def drill_errors(server: Server, log: Path, playwright, delays: np.ndarray) -> np.ndarray:
    browser = launch_chromium(playwright)
    try:
        page = browser.new_page()
        start_drill(page, server.url, "bench", len(delays), foreperiod_ms="100,200")
        cdp = page.context.new_cdp_session(page)
        for delay in delays:
            press_at(page, cdp, wait_for_stimulus(page) + delay, "r")
        page.wait_for_function("() => document.querySelector('#summary-table tbody tr') !== null", timeout=60_000)
    finally:
        browser.close()
    frame = load_logs([log]).sort_values("trial")
    return frame["latency_ms"].to_numpy() - delays


def floor_errors(playwright, delays: np.ndarray) -> np.ndarray:
    browser = launch_chromium(playwright)
    try:
        page = browser.new_page()
        page.set_content(BARE_PAGE)
        cdp = page.context.new_cdp_session(page)
        intended = []
        for delay in delays:
            page.wait_for_timeout(150)
            intended.append(page.evaluate("() => performance.now()") + delay)
            press_at(page, cdp, intended[-1], "r")
        stamps = np.array(page.evaluate("() => stamps"))
    finally:
        browser.close()
    return stamps - np.array(intended)


def post_load(server: Server, log: Path, clients: int, seconds: float) -> dict:
    host, port = "127.0.0.1", server.port
    origin = f"http://{host}:{port}"
    stop_at = time.monotonic() + seconds
    results = []

    def client(index: int) -> None:
        connection = http.client.HTTPConnection(host, port, timeout=30)
        session = str(uuid.uuid4())
        body = {"session_id": session, "player": f"load-{index}", "variant": "standard", "command_first": False,
                "answer": "grey", "latency_ms": 500.0, "too_early": False, "timed_out": False,
                "foreperiod_ms": 700.0, "seed": index, "timestamp": "2026-01-01T12:00:00.000Z"}
        stored, resent, refused, posts, number = set(), 0, 0, 0, 0
        while time.monotonic() < stop_at:
            resend = posts % 10 == 9 and stored
            trial = min(stored) if resend else number + 1
            # The server takes trials only on rolls it dealt: each trial's roll is asked for first.
            connection.request("GET", f"/api/roll?seed={index}&trial={trial}")
            roll = {key: value for key, value in json.loads(connection.getresponse().read()).items()
                    if key in ("command", "dice", "positions")}
            connection.request("POST", "/api/trials", json.dumps({**body, **roll, "trial": trial}),
                               {"Content-Type": "application/json", "Origin": origin})
            response = connection.getresponse()
            response.read()
            posts += 1
            if response.status == 201:
                stored.add(trial)
                number = trial
            elif response.status == 200:
                resent += 1
            else:
                refused += 1  # 429: this session posted faster than a person could; wait a little
                time.sleep(0.01)
        connection.close()
        results.append({"session": session, "stored": stored, "resent": resent, "refused": refused, "posts": posts})

    threads = [threading.Thread(target=client, args=(index,)) for index in range(clients)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    frame = load_logs([log])
    frame = frame.loc[frame["player"].str.startswith("load-")]
    counted = frame.groupby("session_id")["trial"].apply(list).to_dict()
    lost = sum(len(r["stored"] - set(counted.get(r["session"], []))) for r in results)
    duplicated = sum(len(trials) - len(set(trials)) for trials in counted.values())
    unacknowledged = sum(len(set(counted.get(r["session"], [])) - r["stored"]) for r in results)
    rows = sum(len(r["stored"]) for r in results)
    return {"rows": rows, "elapsed": elapsed, "rows_per_s": rows / elapsed, "posts": sum(r["posts"] for r in results),
            "resent": sum(r["resent"] for r in results), "refused": sum(r["refused"] for r in results),
            "lost": lost, "duplicated": duplicated, "unacknowledged": unacknowledged}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=100)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    delays = np.random.default_rng(args.seed).uniform(300, 900, args.keys).round(1)
    print(f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "drills.csv"
        server = Server(log)
        try:
            with sync_playwright() as playwright:
                drill = figures(drill_errors(server, log, playwright, delays))
                floor = figures(floor_errors(playwright, delays))
            print(f"\nkey timing, {args.keys} keys at 300..900 ms after the onset (logged - intended, ms):")
            print(f"{'':12}{'median':>9}{'p95':>9}{'sd':>9}{'min':>9}{'max':>9}")
            for name, row in (("drill page", drill), ("bare page", floor)):
                print(f"{name:12}" + "".join(f"{row[k]:9.2f}" for k in ("median", "p95", "sd", "min", "max")))
            over = drill["median"] - floor["median"]
            print(f"median over the floor: {over:.2f} ms (target under {TARGET_MEDIAN_OVER_FLOOR_MS:g}); "
                  f"sd {drill['sd']:.2f} ms (target under {TARGET_SD_MS:g}): "
                  f"{'met' if abs(over) < TARGET_MEDIAN_OVER_FLOOR_MS and drill['sd'] < TARGET_SD_MS else 'NOT met'}")
            print(f"load average after the timing: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
            load = post_load(server, log, args.clients, args.seconds)
        finally:
            server.stop()
    print(f"\nPOST /api/trials, {args.clients} clients for {args.seconds:g} s on loopback, each row fsynced:")
    print(f"{load['rows']} rows in {load['elapsed']:.1f} s = {load['rows_per_s']:.0f} rows/s "
          f"({load['posts']} posts: {load['resent']} resends answered 'already stored', "
          f"{load['refused']} refused as too fast)")
    print(f"lost: {load['lost']}, duplicated: {load['duplicated']}, "
          f"in the log but never acknowledged: {load['unacknowledged']}")
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    return 0 if load["lost"] == load["duplicated"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
