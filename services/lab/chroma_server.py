"""A local `chroma run` server on a loopback port (benchmarks and fault tests start their own).

Only ever bound to 127.0.0.1: a Chroma server is never exposed to users (README, Deployment).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

READY_TIMEOUT_S = 60.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def chroma_executable() -> str:
    candidate = Path(sys.executable).with_name("chroma")
    if candidate.exists():
        return str(candidate)
    found = shutil.which("chroma")
    if found is None:
        raise RuntimeError("the `chroma` command (from the chromadb package) is not installed")
    return found


class ChromaProcess:
    """`chroma run --path DIR --host 127.0.0.1 --port N`; start() waits until it answers."""

    def __init__(self, path: Path, *, port: int | None = None) -> None:
        self.path = path
        self.port = port or free_port()
        self._process: subprocess.Popen[bytes] | None = None
        self._log: IO[Any] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> ChromaProcess:
        self.path.mkdir(parents=True, exist_ok=True)
        self._log = (self.path / "server.log").open("ab")
        self._process = subprocess.Popen(
            [
                chroma_executable(),
                "run",
                "--path",
                str(self.path / "data"),
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
            ],
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
        )
        self._wait_ready()
        return self

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=20)
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> ChromaProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _wait_ready(self) -> None:
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:  # the caller must not start before the server answers
            assert self._process is not None
            if self._process.poll() is not None:
                raise RuntimeError(
                    f"chroma run exited: {(self.path / 'server.log').read_text(errors='replace')}"
                )
            try:
                chromadb.HttpClient(
                    host="127.0.0.1",
                    port=self.port,
                    settings=ChromaSettings(anonymized_telemetry=False),
                ).heartbeat()
                return
            except Exception:
                if time.monotonic() > deadline:
                    self.stop()
                    raise
                time.sleep(0.2)
