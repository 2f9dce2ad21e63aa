"""bench/call_floor.py: every layer answers its calls over loopback with both clients, the
figures add up, and each server process is stopped once measured."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from bench.call_floor import BARE, LAYERS, clients_of, run_layer


@pytest.mark.e2e
def test_each_layer_is_called_and_its_server_stopped(tmp_path: Path) -> None:
    args = argparse.Namespace(calls=40, warmup=10, concurrency=4, logs=str(tmp_path))
    rows = [row for layer in LAYERS for row in run_layer(layer, clients_of(layer), args)]

    assert [(row["layer"], row["client"]) for row in rows] == [
        (layer, client)
        for layer in LAYERS
        for client in (("aiohttp",) if layer in BARE else ("aiohttp", "rpc"))
    ]
    for row in rows:
        assert row["calls"] == 40 and row["calls_per_s"] > 0
        assert row["server_us"] >= 0 and row["client_us"] >= 0  # 40 calls: maybe under a tick
        assert row["both_us"] == pytest.approx(row["server_us"] + row["client_us"])
        assert not Path(f"/proc/{row['server_pid']}").exists(), "the server is stopped"
    logged = (tmp_path / "server.log.jsonl").read_text().count('"message_received"')
    assert logged >= 3 * (40 + 10) * 2, "the endpoint layers logged every call they served"
