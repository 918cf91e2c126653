"""`diavolo serve` as a user runs it: the address first, Ctrl-C after the requests in flight."""

from __future__ import annotations

import html
import json
import re
import signal
import socket
import urllib.error
import urllib.request

import pytest
from helpers.api import SEED, trial_body
from helpers.browser import ORIGIN, Server
from helpers.cli import REPO, assert_one_line_error
from starlette.testclient import TestClient

from diavolo_stats.core.odds import exact_odds
from diavolo_stats.core.variant_file import read_variant, variant_from_document
from diavolo_stats.drill.log import load_logs
from diavolo_stats.web.app import create_app


def fetch(url: str, timeout: float = 60) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


@pytest.mark.slow  # a real server process
def test_the_first_line_is_the_address_and_it_answers(log_path):
    server = Server(log_path)
    try:
        assert server.first_line.startswith(f"serving on http://127.0.0.1:{server.port}/")
        status, page = fetch(server.url + "drill")
        assert status == 200 and b"The drill" in page
    finally:
        server.stop()


@pytest.mark.slow  # a real server process
def test_ctrl_c_answers_the_requests_in_flight_then_exits_0(tmp_path):
    log = tmp_path / "drills.csv"
    server = Server(log, 0, cwd=tmp_path)
    try:
        roll = json.loads(fetch(f"{server.url}api/roll?seed={SEED}&trial=1")[1])
        body = json.dumps(trial_body(roll, 1)).encode()
        origin = f"http://127.0.0.1:{server.port}"
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as connection:
            connection.sendall((f"POST /api/trials HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nOrigin: {origin}\r\n"
                                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                                "Expect: 100-continue\r\n\r\n").encode())
            # The app has begun reading this request (it asks for the body): the request is in flight.
            assert connection.recv(4096).startswith(b"HTTP/1.1 100 Continue")
            server.process.send_signal(signal.SIGINT)
            connection.sendall(body)
            answer = b""
            while chunk := connection.recv(65536):
                answer += chunk
        status = server.process.wait(30)
    finally:
        server.stop()
    assert status == 0
    assert answer.startswith(b"HTTP/1.1 201"), answer[:200]
    assert load_logs([log])["trial"].tolist() == [1]


def test_a_port_in_use_is_a_one_line_error(diavolo, log_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        result = diavolo("serve", "--port", str(taken.getsockname()[1]), "--log", str(log_path))
    assert_one_line_error(result, "--port", "cannot listen on 127.0.0.1")


@pytest.mark.parametrize("host", ["", " "])
def test_a_blank_host_is_refused_naming_the_flag(diavolo, log_path, host):
    # The socket would listen on every address, the address printed would be http://:8765/.
    result = diavolo("serve", "--port", "0", "--host", host, "--log", str(log_path))
    assert_one_line_error(result, "--host: must be an address or a host name to listen on", f"got {host!r}")
    assert result.stdout == ""


def test_an_address_not_of_this_machine_or_a_name_of_none_is_refused_naming_the_host(diavolo, log_path, monkeypatch):
    # 192.0.2.1 is kept for documentation (RFC 5737): no machine has it, so it cannot be bound.
    result = diavolo("serve", "--port", "0", "--host", "192.0.2.1", "--log", str(log_path))
    assert_one_line_error(result, "--host: cannot listen on 192.0.2.1:0 (Cannot assign requested address)")

    def unknown(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    # As a resolver answers a name it does not know (create_server would re-raise it as "Unknown error -2").
    monkeypatch.setattr(socket, "getaddrinfo", unknown)
    result = diavolo("serve", "--port", "0", "--host", "nosuch.invalid", "--log", str(log_path))
    assert_one_line_error(result, "--host: cannot listen on nosuch.invalid:0 (Name or service not known)")


@pytest.mark.parametrize("host, reason", [("..", "label empty or too long"), ("x" * 64, "label too long")])
def test_a_host_that_is_no_host_name_is_refused_naming_the_host_not_with_the_encoder_s_traceback(diavolo, log_path,
                                                                                                host, reason):
    # The resolver's IDNA encoder raises UnicodeError (not gaierror) for an empty label or one over 63 characters.
    result = diavolo("serve", "--port", "0", "--host", host, "--log", str(log_path))
    assert_one_line_error(result, f"--host: cannot listen on {host}:0 (not a host name: {reason})")


@pytest.mark.slow  # a real server process
def test_a_token_is_asked_of_every_request(log_path):
    server = Server(log_path, 0, "--token", "t0ken")
    try:
        assert server.url.endswith("/?token=t0ken")
        assert fetch(server.url.split("?")[0] + "drill")[0] == 401
        assert fetch(server.url)[0] == 200
    finally:
        server.stop()


@pytest.mark.slow  # a real server process
def test_open_without_a_browser_says_so_in_one_line_with_the_address(log_path, tmp_path, monkeypatch):
    # No display and a browser that is not there: nothing can be opened (the child inherits this environment).
    for name in ("DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("BROWSER", str(tmp_path / "no-such-browser"))
    server = Server(log_path, 0, "--open")
    try:
        second = server.process.stdout.readline()
        assert second == f"no web browser could be opened here; open {server.url} in one yourself\n"
        assert fetch(server.url + "me")[0] == 200  # and it serves all the same
    finally:
        server.stop()


@pytest.mark.timeout(60)  # were the file read after the server started, this would serve until killed
@pytest.mark.parametrize(("name", "named"), [("broken.toml", "commands.most-sixes.wins: must be highest or lowest"),
                                             ("no-such-variant.toml", "cannot read it (No such file")])
def test_a_bad_variant_is_one_line_before_the_server_starts(diavolo, log_path, name, named):
    path = REPO / "examples" / "variants" / name
    result = diavolo("serve", "--port", "0", "--log", str(log_path), "--variant", str(path))
    assert_one_line_error(result, str(path), named)
    assert result.stdout == "" and not log_path.exists()


def test_the_explorer_opens_on_the_variant_the_server_holds(log_path):
    variant = read_variant(REPO / "examples" / "variants" / "sixes.toml")
    with TestClient(create_app(log_path, variant=variant), base_url=ORIGIN, headers={"Origin": ORIGIN}) as client:
        page = client.get("/explore").text
        start = json.loads(html.unescape(re.search(r'id="explore-start">(.*?)</script>', page, re.S).group(1)))
        assert variant_from_document(start["document"]) == variant
        view = client.post("/api/explore", json=start["document"]).json()
    assert view["odds"] == exact_odds(variant).document()
    assert view["die"]["most-sixes"] == 2


@pytest.mark.timeout(60)  # were the token checked after the server started, this would serve until killed
@pytest.mark.parametrize("token", ["", "a b", "\U0001F3B2dice", "x" * 201, "caf\u00e9", "a;b=c"])
def test_a_token_a_link_or_a_cookie_cannot_carry_is_one_line_before_the_server_starts(diavolo, log_path, token):
    result = diavolo("serve", "--port", "0", "--log", str(log_path), "--token", token)
    assert_one_line_error(result, "--token", "1 to 200 characters of ASCII letters, digits and - _ . ~")


@pytest.mark.timeout(60)
@pytest.mark.parametrize("url, said", [
    ("", "--nats: must be the URL of a NATS server (nats://host:4222), got ''"),  # before anything listens
    ("  ", "--nats: must be the URL of a NATS server (nats://host:4222), got '  '"),
    ("nats://", "--nats: cannot reach the NATS server at nats:// (nats: invalid hostname in connect url)"),
])
def test_a_nats_url_that_names_no_server_is_one_line_not_a_traceback(diavolo, log_path, url, said):
    result = diavolo("serve", "--port", "0", "--log", str(log_path), "--nats", url)
    assert_one_line_error(result, f"diavolo: error: {said}")


def test_every_address_prints_this_machines_own_addresses_a_phone_can_reach(monkeypatch):
    from types import SimpleNamespace

    from diavolo_stats.web import server

    def interface(family, address):
        return SimpleNamespace(family=family, address=address)

    interfaces = {"lo": [interface(socket.AF_INET, "127.0.0.1"), interface(socket.AF_INET6, "::1")],
                  "eth0": [interface(socket.AF_INET, "192.168.1.20"), interface(socket.AF_INET6, "fe80::1%eth0"),
                           interface(socket.AF_INET6, "2001:db8::20"), interface(socket.AF_PACKET, "00:11:22:33:44")],
                  "wlan0": [interface(socket.AF_INET, "10.0.0.5")]}
    monkeypatch.setattr(server.psutil, "net_if_addrs", lambda: interfaces)
    assert server.reachable_addresses("0.0.0.0") == ["192.168.1.20", "10.0.0.5"]
    assert server.reachable_addresses("::") == ["192.168.1.20", "10.0.0.5", "2001:db8::20"]
    assert server.reachable_addresses("192.168.1.20") == ["192.168.1.20"]
    monkeypatch.setattr(server.psutil, "net_if_addrs", lambda: {"lo": interfaces["lo"]})
    assert server.reachable_addresses("0.0.0.0") == ["127.0.0.1"]  # no network: this machine only
