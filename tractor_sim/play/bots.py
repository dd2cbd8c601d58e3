"""Outside bots: a child process answering decisions in JSON Lines over its stdin and stdout.

The protocol (docs/bots.md, version ``VERSION``): the simulator writes one JSON object per line,
the bot answers each with one line.  ``hello`` (the bot answers its own ``hello`` with the
version it speaks), then per decision ``decide`` (the seat's view as named fields: players.View;
the legal answers, the first ``LEGAL_LIMIT`` of them, with ``more`` when there are others, and the
answer's ``size`` in cards where it is fixed), answered by ``answer`` (a decision with one legal
answer is not sent); ``bye`` at the end of a chunk.
Every answer has a time limit.  A bot that exits, closes a pipe, hangs, writes what is not the
protocol or answers illegally stops the run with one line naming it, what it did and the deal.
"""

from __future__ import annotations

import itertools
import json
import os
import selectors
import subprocess
import tempfile
import time

from tractor_sim.play.errors import SimulationError
from tractor_sim.play.players import PlayerFailed, View

PROTOCOL = "tractor-sim-bot"
VERSION = 1
LEGAL_LIMIT = 64  # legal answers listed per decision (the first ones, smaller plays first)
HELLO_TIMEOUT = 20.0  # seconds for the bot to start and say hello
MAX_LINE = 1 << 20  # a longer line is not an answer


class BotSession:
    """One bot process, for the decisions of one chunk."""

    def __init__(self, info, game, spec):
        self.info, self.game = info, game
        self._err = tempfile.TemporaryFile()
        try:
            self.proc = subprocess.Popen(list(info.command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self._err, bufsize=0)
        except OSError as e:
            self._err.close()
            raise SimulationError(f"{info.describe()} cannot start: {e.strerror or e}") from None
        self._buf = b""
        self._sel = selectors.DefaultSelector()
        self._sel.register(self.proc.stdout, selectors.EVENT_READ)
        self._ids = itertools.count(1)
        size = game.size
        try:
            self._send({"type": "hello", "protocol": PROTOCOL, "version": VERSION, "name": info.name,
                        "game": {"players": size.players, "decks": size.decks, "teams": size.teams},
                        "rules": game.rules.to_dict(), "params": dict(info.params)})
            reply = self._receive(HELLO_TIMEOUT, "its hello")
            if reply.get("type") != "hello" or reply.get("version") != VERSION:
                raise PlayerFailed(f"answered the hello with {_short(reply)}: expected "
                                   f'{{"type": "hello", "version": {VERSION}}}')
        except PlayerFailed as e:
            self.close()
            raise SimulationError(f"{info.describe()} {e}") from None

    def describe(self) -> str:
        return self.info.describe()

    def answer(self, state, turn, deal_id):
        legal = list(itertools.islice(state.iter_legal(), LEGAL_LIMIT + 1))
        if len(legal) == 1:  # no choice (most declaration chances): not asked
            return legal[0]
        ident = next(self._ids)
        view = View(state.game, state.observation(turn.seat))
        size = {"follow": view.lead_size, "discard": state.game.dims.KITTY}.get(turn.decision)
        self._send({"type": "decide", "id": ident, "deal": deal_id, "seat": turn.seat, "decision": turn.decision,
                    "step": turn.step, "view": view.to_dict(), "legal": legal[:LEGAL_LIMIT],
                    "more": len(legal) > LEGAL_LIMIT, "size": size})
        reply = self._receive(self.info.timeout, f"the answer to decision {ident}")
        if reply.get("type") == "error":
            raise PlayerFailed(f"gave up: {str(reply.get('message', ''))[:200]}")
        if reply.get("type") != "answer" or reply.get("id") != ident or "answer" not in reply:
            raise PlayerFailed(f"wrote {_short(reply)} where an answer to decision {ident} was due "
                               f'({{"type": "answer", "id": {ident}, "answer": ...}})')
        return reply["answer"]

    # ---------------------------------------------------------------- the pipes
    def _send(self, message: dict) -> None:
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode()
        try:
            self.proc.stdin.write(data)
        except (BrokenPipeError, ConnectionResetError, ValueError):
            raise PlayerFailed(self._gone("closed its stdin")) from None

    def _receive(self, timeout: float, what: str) -> dict:
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buf:
            if len(self._buf) > MAX_LINE:
                raise PlayerFailed(f"wrote a line longer than {MAX_LINE} bytes instead of {what}")
            left = deadline - time.monotonic()
            if left <= 0 or not self._sel.select(left):
                self.kill()
                raise PlayerFailed(f"did not answer within {timeout:g} s ({what}; stopped)")
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                raise PlayerFailed(self._gone(f"closed its stdout before {what}"))
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        try:
            message = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise PlayerFailed(f"wrote something that is not JSON instead of {what}: "
                               f"{line[:80].decode(errors='replace')!r}") from None
        if not isinstance(message, dict):
            raise PlayerFailed(f"wrote {_short(message)} instead of {what} (a JSON object)")
        return message

    def _gone(self, what: str) -> str:
        """What the bot did: exited (with its code and the last line of its stderr), or closed a pipe."""
        try:
            code = self.proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return what
        return f"exited with code {code}{self._stderr_tail()}"

    def _stderr_tail(self) -> str:
        try:
            self._err.seek(0, os.SEEK_END)
            n = self._err.tell()
            self._err.seek(max(0, n - 2000))
            lines = [x for x in self._err.read().decode(errors="replace").splitlines() if x.strip()]
        except (OSError, ValueError):
            return ""
        return f" (its stderr: {lines[-1].strip()[:200]!r})" if lines else ""

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def close(self) -> None:
        """Say bye, close its stdin, give it a moment to exit, then stop it."""
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write(b'{"type":"bye"}\n')
                self.proc.stdin.close()
                self.proc.wait(timeout=2.0)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                self.kill()
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        self._sel.close()
        self._err.close()


def _short(message) -> str:
    text = json.dumps(message)
    return text if len(text) <= 80 else text[:77] + "..."


__all__ = ["BotSession", "PROTOCOL", "VERSION", "LEGAL_LIMIT"]
