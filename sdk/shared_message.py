"""One message sent to many agents, encoded once.

A round's standings go to every player, each copy with its own proof and nothing else of
its own: encoded once and the proof spliced into the bytes, a broadcast to n players costs
one pydantic dump and one JSON encoding instead of n of each (and is logged once, by its
sender, instead of n times)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from sdk.messages import Message

__all__ = ["SharedMessage", "Signed"]

_REQUEST_ROOM = 160
"""Bytes a copy's request adds to its message: ``{"jsonrpc":"2.0","method":…,"params":``,
``"auth_token":``, ``,"id":…}`` (a method name of up to 80 characters)."""


class SharedMessage:
    """A message's wire form without its ``auth_token``, encoded once; ``signed`` makes
    each recipient's copy."""

    def __init__(self, message: Message):
        wire = message.to_wire()
        wire.pop("auth_token", None)
        self.wire: dict[str, Any] = wire
        """The wire form every copy shares (what the sender logs, once)."""
        self.message_type: str = message.message_type
        self.conversation_id: str = message.conversation_id
        self._encoded = orjson.dumps(wire)

    def signed(self, proof: str | None) -> Signed:
        """The copy that carries ``proof`` as its ``auth_token`` (None: the shared one)."""
        return Signed(self, proof)

    @property
    def size(self) -> int:
        """The bytes of the shared encoding."""
        return len(self._encoded)

    def parts(self, proof: str | None) -> list[bytes | memoryview]:
        """The copy's JSON, the shared object with ``"auth_token"`` first when there is one,
        in pieces to join once into whatever holds it (a request, a batch): the shared
        encoding is not copied before that join (at 1,000 players a round's batch to each
        player is about 200 KB)."""
        if proof is None:
            return [self._encoded]
        token = b'{"auth_token":' + orjson.dumps(proof)
        if self._encoded == b"{}":
            return [token, b"}"]
        return [token + b",", memoryview(self._encoded)[1:]]


@dataclass(frozen=True)
class Signed:
    """One recipient's copy of a shared message (``RpcClient.call`` sends it as is)."""

    shared: SharedMessage
    proof: str | None

    def parts(self) -> list[bytes | memoryview]:
        return self.shared.parts(self.proof)

    @property
    def size(self) -> int:
        """The bytes this copy takes in a JSON-RPC request, its envelope included, at most
        (known without encoding it)."""
        proof = 0 if self.proof is None else len(orjson.dumps(self.proof))
        return self.shared.size + proof + _REQUEST_ROOM
