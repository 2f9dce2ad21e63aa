"""Starts and stops a whole league's processes on one machine, with pid files, so that
``league down`` stops exactly what ``league up`` started and nothing else."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from league_manager.pg.store_url import STORE_URL_ENV
from sdk.service import LISTEN_FD_ENV

__all__ = ["AgentProcess", "Launcher", "LaunchError", "Port", "port_number", "stop_from_pid_files"]

_MODULE = "league_cli"


Port = int | socket.socket
"""An agent's port, or a socket already bound to it that the agent takes over."""


def port_number(port: Port) -> int:
    """The port itself, or the one the socket is bound to."""
    return port if isinstance(port, int) else int(port.getsockname()[1])


class LaunchError(RuntimeError):
    """A process did not start or did not become healthy in time. ``exit_code``: what
    ``league up`` ends with: 1, or the code of the agent whose exit stopped the start,
    which says who must act (2: the file system or the store, doc/reliability.md)."""

    def __init__(self, message: str, exit_code: int = 1):
        super().__init__(message)
        self.exit_code = exit_code


@dataclass
class AgentProcess:
    name: str
    kind: str
    port: int
    popen: subprocess.Popen[bytes]
    pid_file: Path
    output: Path

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def mcp_url(self) -> str:
        return f"{self.base_url}/mcp"

    def exit_error(self) -> LaunchError | None:
        """None while the process runs; once it has exited, the error that says so: its
        exit code (passed on, 1 for a process a signal ended), the last line it printed (an
        agent says there why it stopped: a refused registration, a taken port, an unusable
        store) and where the rest of its output is."""
        code = self.popen.poll()
        if code is None:
            return None
        try:
            lines = self.output.read_text(errors="replace").splitlines()
        except OSError:
            lines = []
        said = next((line.strip() for line in reversed(lines) if line.strip()), "")
        return LaunchError(
            f"{self.name} exited with code {code}"
            + (f" ({said})" if said else "")
            + f"; its output is in {self.output}",
            max(code, 0) or 1,
        )


@dataclass
class Launcher:
    """Starts agents as child processes of this one (``python -m league_cli ...``)."""

    shared_dir: Path
    host: str = "127.0.0.1"
    processes: list[AgentProcess] = field(default_factory=list)
    _league_id: str | None = None
    """The league of the League Manager started here: its referees read its secret."""

    @property
    def run_dir(self) -> Path:
        return self.shared_dir / "run"

    def _spawn(
        self, kind: str, name: str, port: Port, args: list[str], env: dict[str, str] | None = None
    ) -> AgentProcess:
        command = [
            sys.executable,
            "-m",
            _MODULE,
            kind,
            "--shared-dir",
            str(self.shared_dir),
            "--host",
            self.host,
            "--port",
            str(port_number(port)),
            *args,
        ]
        return self.start(kind, name, port, command, env)

    def start(
        self,
        kind: str,
        name: str,
        port: Port,
        command: list[str],
        env: dict[str, str] | None = None,
    ) -> AgentProcess:
        """Start ``command`` as an agent of this launcher (its own session, its output to
        ``logs/processes/<name>.out``, a pid file), stopped by ``stop_all`` with the rest.

        ``port`` is the agent's port, or a socket bound to it
        (``sdk.service.listening_socket``): the agent then serves on that very socket
        (``LISTEN_FD_ENV``), so no other process can take the port between its choice and
        the agent's start. The socket is the child's from then on: it is closed here."""
        number = port_number(port)
        env = dict(env or {})
        handed: tuple[int, ...] = ()
        if isinstance(port, socket.socket):
            handed = (port.fileno(),)
            env[LISTEN_FD_ENV] = str(port.fileno())
        output = self.shared_dir / "logs" / "processes" / f"{name}.out"
        try:
            self.run_dir.mkdir(parents=True, exist_ok=True)
            output.parent.mkdir(parents=True, exist_ok=True)
            with open(output, "ab") as sink:
                popen = subprocess.Popen(
                    command,
                    stdout=sink,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    env={**os.environ, **env},
                    start_new_session=True,
                    pass_fds=handed,
                )
        finally:
            if isinstance(port, socket.socket):
                port.close()
        pid_file = self.run_dir / f"{name}.pid"
        pid_file.write_text(
            json.dumps(
                {"pid": popen.pid, "name": name, "kind": kind, "port": number, "command": command}
            )
        )
        process = AgentProcess(name, kind, number, popen, pid_file, output)
        self.processes.append(process)
        return process

    def manager(
        self,
        port: Port,
        league_id: str | None = None,
        auto_start_players: int | None = None,
        play_url: str | None = None,
        store_url: str | None = None,
    ) -> AgentProcess:
        """``play_url``: the play service's /play page, which the dashboard links to;
        ``store_url``: its PostgreSQL store, handed over in its environment
        ($LEAGUE_STORE_URL), never its command line, which any user of the machine sees."""
        args = []
        if league_id:
            args += ["--league-id", league_id]
            self._league_id = league_id
        if auto_start_players:
            args += ["--auto-start-players", str(auto_start_players)]
        if play_url:
            args += ["--play-url", play_url]
        env = None if store_url is None else {STORE_URL_ENV: store_url}
        return self._spawn("manager", "league_manager", port, args, env)

    def play_service(
        self, port: Port, lm_url: str, env: dict[str, str] | None = None
    ) -> AgentProcess:
        """The play service of the League Manager at ``lm_url`` (its /mcp URL); it reads
        the referee secret as this launcher's referees do. ``env``: variables added to
        this process's (``LEAGUE_LLM_*``, ``LEAGUE_PLAY_*``)."""
        args = ["--lm-url", lm_url]
        if self._league_id:
            args += ["--league-id", self._league_id]
        return self._spawn("play-service", "play-service", port, args, env)

    def referee(
        self,
        name: str,
        port: Port,
        lm_url: str,
        max_concurrent: int = 4,
        seed: int | None = None,
        game_type: str | None = None,
        *,
        standalone: bool = False,
        advertise: str | None = None,
    ) -> AgentProcess:
        """``standalone``: no registration, the referee serves ``/run_match`` only;
        ``advertise``: the endpoint it registers, when peers reach it elsewhere."""
        args = ["--name", name, "--lm-url", lm_url, "--max-concurrent", str(max_concurrent)]
        if self._league_id:  # where the League Manager keeps the referee secret
            args += ["--league-id", self._league_id]
        if standalone:
            args.append("--standalone")
        if seed is not None:
            args += ["--seed", str(seed)]
        if game_type:
            args += ["--game-type", game_type]
        if advertise:
            args += ["--advertise", advertise]
        return self._spawn("referee", f"referee-{name}", port, args)

    def player(
        self,
        name: str,
        port: Port,
        lm_url: str,
        strategy: str = "random",
        game_type: str | None = None,
        *,
        player_id: str | None = None,
        standalone: bool = False,
        advertise: str | None = None,
    ) -> AgentProcess:
        """``standalone`` with a ``player_id``: no registration, for a referee's
        ``/run_match``; ``advertise``: the endpoint it registers, when peers reach it
        elsewhere."""
        args = ["--name", name, "--lm-url", lm_url, "--strategy", strategy]
        if player_id:
            args += ["--player-id", player_id]
        if standalone:
            args.append("--standalone")
        if game_type:
            args += ["--game-type", game_type]
        if advertise:
            args += ["--advertise", advertise]
        return self._spawn("player", f"player-{name}", port, args)

    def wait_healthy(self, process: AgentProcess, timeout: float = 30.0) -> None:
        """Poll ``/health`` until it answers 200; fail fast if the process exits."""
        deadline = time.monotonic() + timeout
        with httpx.Client(timeout=1.0) as client:
            while time.monotonic() < deadline:
                exited = process.exit_error()
                if exited is not None:
                    raise exited
                try:
                    if client.get(f"{process.base_url}/health").status_code == 200:
                        return
                except httpx.HTTPError:
                    pass
                time.sleep(0.1)
        raise LaunchError(
            f"{process.name} was not healthy after {timeout:g} s; its output is in {process.output}"
        )

    def stop_all(self, timeout: float = 10.0) -> None:
        """SIGTERM every process started here (by pid), SIGKILL any still alive after
        ``timeout``, and remove their pid files."""
        for process in self.processes:
            if process.popen.poll() is None:
                process.popen.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + timeout
        for process in self.processes:
            remaining = max(0.1, deadline - time.monotonic())
            try:
                process.popen.wait(remaining)
            except subprocess.TimeoutExpired:
                process.popen.kill()
                process.popen.wait(5)
            process.pid_file.unlink(missing_ok=True)
        self.processes.clear()


def _is_ours(pid: int, command: list[str]) -> bool:
    """True if ``pid`` still runs exactly the recorded command (a reused pid is not ours)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().rstrip(b"\0").split(b"\0")
    except OSError:
        return False
    return [part.decode(errors="replace") for part in cmdline] == command


def stop_from_pid_files(run_dir: Path, timeout: float = 10.0) -> list[str]:
    """Stop the agents recorded in ``run_dir``'s pid files; returns the names stopped."""
    stopped: list[str] = []
    signalled: list[tuple[int, Path]] = []
    for pid_file in sorted(run_dir.glob("*.pid")):
        try:
            record = json.loads(pid_file.read_text())
            pid, name, command = int(record["pid"]), str(record["name"]), list(record["command"])
        except (ValueError, KeyError, TypeError, OSError):
            pid_file.unlink(missing_ok=True)
            continue
        if _is_ours(pid, command):
            os.kill(pid, signal.SIGTERM)
            signalled.append((pid, pid_file))
            stopped.append(name)
        else:
            pid_file.unlink(missing_ok=True)
    deadline = time.monotonic() + timeout
    for pid, pid_file in signalled:
        while time.monotonic() < deadline and not _is_gone(pid):
            time.sleep(0.05)
        if not _is_gone(pid):
            os.kill(pid, signal.SIGKILL)
        pid_file.unlink(missing_ok=True)
    return stopped


def _is_gone(pid: int) -> bool:
    """True once ``pid`` has exited (a zombie waiting for its parent counts as gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0] == "Z"
    except (OSError, IndexError):
        return True
