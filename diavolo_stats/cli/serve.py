"""`diavolo serve`: the drill and the variant explorer in the browser, on a local web server."""

from __future__ import annotations

import argparse

from diavolo_stats.cli.common import path_type, value_type
from diavolo_stats.core.variant_file import variant_named
from diavolo_stats.validation import Whole

MAX_PORT = 65_535
"""The highest TCP port number."""


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "serve", handler=run, help="the drill, the variant explorer and reports as a local web app",
        description="Serve the drill (/drill), games against modelled players (/play) and with friends in a room "
                    "(/room), the variant explorer (/explore) and reports (/report) on a "
                    "local web server. The first line printed is the address to open. Ctrl-C stops it "
                    "once the requests in flight are answered.")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this machine only; any other needs a token; "
                             "0.0.0.0 listens on every address and prints this machine's own)")
    parser.add_argument("--port", type=value_type(Whole(0, MAX_PORT)), default=8765, metavar="N",
                        help=f"port to listen on, 0 to {MAX_PORT:,} (default 8765; 0 picks a free one)")
    parser.add_argument("--log", type=path_type(), metavar="PATH",
                        help="drill log the browser drill appends to (default: $DIAVOLO_LOG, else data/drills.csv)")
    parser.add_argument("--token", metavar="TOKEN",
                        help="secret every request must carry: 1 to 200 ASCII letters, digits and - _ . ~ (it "
                             "travels in links and a cookie as it is); required (or made up and printed) when --host "
                             "is not a loopback address")
    parser.add_argument("--variant", default="standard", metavar="NAME|FILE",
                        help="the game the server holds, which the explorer opens on: a preset (standard or kids) or a "
                             "variant file (.toml) with its own dice, commands and command die (read before the "
                             "server starts; a bad file is refused then)")
    parser.add_argument("--nats", metavar="URL",
                        help="share rooms with other `diavolo serve` processes through the NATS server at URL "
                             "(nats://host:4222; needs the nats extra and JetStream): a room's code works on each; "
                             "without it, rooms stay in this process")
    parser.add_argument("--open", action="store_true", help="open the address in the web browser")


def run(args: argparse.Namespace) -> int:
    from diavolo_stats.web.server import serve

    variant = variant_named(args.variant)  # a bad file is one line here, before anything listens
    serve(host=args.host, port=args.port, log=args.log, token=args.token, open_browser=args.open, variant=variant,
          nats=args.nats)
    return 0
