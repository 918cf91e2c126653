"""The progress page, `/me`, in-process: the figures of `player_progress` in words, and what it says without them."""

from __future__ import annotations

import re
import shutil
import struct

from helpers.api import a_trial
from helpers.cli import REPO

from diavolo_stats.analytics import wording
from diavolo_stats.analytics.progress import player_progress
from diavolo_stats.drill.log import load_logs

SAMPLE = REPO / "data" / "sample_drills.csv"


def figures(page: str) -> list[str]:
    return re.findall(r'<p class="big" data-figure="\w+">([^<]*)</p>', page)


def test_the_page_shows_the_players_figures_chart_weak_spots_and_an_adaptive_drill(client, log_path):
    shutil.copy(SAMPLE, log_path)
    page = client.get("/me", params={"player": "synthetic-novice"})
    assert page.status_code == 200
    progress = player_progress(load_logs([SAMPLE]), "synthetic-novice")
    expected = [wording.milliseconds(progress.last_session.median_ms.value),
                wording.percent(progress.last_session.accuracy.value),
                wording.milliseconds(progress.last_week.median_ms.value),
                wording.percent(progress.last_week.accuracy.value)]
    assert figures(page.text) == expected
    # The chart is a PNG of its own, the phone's layout narrower than the wide one, the same sessions in both.
    wide = re.search(r'<img class="chart"[^>]* src="(/me/chart.png[^"]*)"', page.text).group(1)
    narrow = re.search(r'<source media="\(max-width: 40em\)" srcset="(/me/chart.png[^"]*)"', page.text).group(1)
    sizes = {}
    for layout, url in (("wide", wide), ("narrow", narrow)):
        chart = client.get(url.replace("&amp;", "&"))
        assert chart.status_code == 200 and chart.headers["content-type"] == "image/png"
        assert chart.content.startswith(b"\x89PNG\r\n\x1a\n")
        sizes[layout] = struct.unpack(">II", chart.content[16:24])  # width, height from the IHDR chunk
    assert sizes["narrow"][0] < sizes["wide"][0] and sizes["narrow"][1] > sizes["wide"][1]
    spots = re.findall(r"<li>([^<]*)</li>", page.text.split('class="weak-spots"')[1].split("</ul>")[0])
    assert len(spots) == len(progress.weak_spots) > 0
    assert wording.milliseconds_interval(progress.weak_spots[0].estimate) in spots[0]
    # By roll type, the reading model's sentences, as the report writes them.
    by_roll = re.findall(r"<li>([^<]*)</li>", page.text.split('class="roll-weak-spots"')[1].split("</ul>")[0])
    assert by_roll == [wording.sentence(cost.sentence) for cost in progress.roll_weak_spots.costs]
    assert len(by_roll) > 0
    assert 'href="/drill?player=synthetic-novice&amp;adaptive=1"' in page.text


def test_without_a_name_the_page_is_the_last_players_and_the_report_list_links_to_it(client, log_path):
    shutil.copy(SAMPLE, log_path)
    frame = load_logs([SAMPLE])
    last = frame.loc[frame["timestamp"].idxmax(), "player"]
    assert f"<h1>{last}: your progress</h1>" in client.get("/me").text
    assert f'href="/me?player={last}"' in client.get("/report").text


def test_an_empty_log_and_a_single_session_say_so_in_a_sentence(client, log_path):
    assert "No trials in" in client.get("/me").text
    assert client.post("/api/trials", json=a_trial(client, player="ann")).status_code == 201
    page = client.get("/me", params={"player": "ann"}).text
    assert "One session so far" in page and "<img" not in page
    chart = client.get("/me/chart.png", params={"player": "ann", "layout": "wide"})
    assert chart.status_code == 400 and "one session" in chart.text
    assert client.get("/me/chart.png", params={"player": "ann", "layout": "tall"}).status_code == 400
    # One answer is too few for the reading model: the page says so rather than name a weak spot by roll type.
    assert "No weak spot by roll type: no player of the drill log has the 30 answers a fit needs (most: 1)." in page
    assert client.get("/me", params={"player": "bob"}).status_code == 400


def test_the_page_reads_the_log_once_then_only_the_trials_stored_since(client, log_path, monkeypatch):
    from diavolo_stats.drill.log import reader

    shutil.copy(SAMPLE, log_path)
    assert client.get("/me", params={"player": "synthetic-novice"}).status_code == 200
    assert client.post("/api/trials", json=a_trial(client, player="ann")).status_code == 201
    starts = []  # the byte each read of the log's rows starts from, while the page is asked for again
    read = reader.FollowedLog._read

    def recorded(followed, warn_cut):
        starts.append(followed._offset)
        return read(followed, warn_cut)

    monkeypatch.setattr(reader.FollowedLog, "_read", recorded)
    page = client.get("/me", params={"player": "ann"}).text
    assert "<h1>ann: your progress</h1>" in page and "One session so far" in page
    assert starts and 0 not in starts  # the trial stored since is read, not the sample log again
