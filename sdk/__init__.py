"""What every agent shares: message models, JSON-RPC server and client, auth tokens, config,
the JSON-file store and structured logs. Imports no service and not ``games``."""

from __future__ import annotations

from sdk.agent_log import AgentLog
from sdk.auth import TokenBook, issue_token, redact, token_digest, token_matches
from sdk.client import RpcClient
from sdk.config import ConfigError, SharedDir
from sdk.errors import ErrorCode, LeagueSDKError, ProtocolError, RemoteError, TransportError
from sdk.jsonrpc import JsonRpcEndpoint, RpcMethod
from sdk.store import Journal, StoreError, atomic_write_json, read_json, write_document
from sdk.timeutil import format_utc, parse_utc, utc_now, utc_now_str

__all__ = [
    "AgentLog",
    "ConfigError",
    "ErrorCode",
    "Journal",
    "JsonRpcEndpoint",
    "LeagueSDKError",
    "ProtocolError",
    "RemoteError",
    "RpcClient",
    "RpcMethod",
    "SharedDir",
    "StoreError",
    "TokenBook",
    "TransportError",
    "atomic_write_json",
    "format_utc",
    "issue_token",
    "parse_utc",
    "read_json",
    "redact",
    "token_digest",
    "token_matches",
    "utc_now",
    "utc_now_str",
    "write_document",
]
