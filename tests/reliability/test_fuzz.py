"""Fuzzing every service's /mcp (issue 5): hypothesis-generated bodies of every kind in
``tests/reliability/strategies.py`` against a real League Manager, referee and player.
Whatever comes in, the answer is sound (``answer_problems``: never HTTP 500, always a
JSON-RPC response, HTTP 204 or 413, no traceback, no -32603), nothing prints a traceback,
and the service is healthy at the end. Deterministic (derandomized, no example database);
``bench/fuzz.py`` runs the same kinds by the tens of thousands.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings

from tests.reliability.services import (
    SERVICE_NAMES,
    TRACEBACK_MARKS,
    Services,
    answer_problems,
    running_services,
)
from tests.reliability.strategies import KINDS, body_kinds

pytestmark = pytest.mark.e2e

EXAMPLES_PER_KIND = 25
"""Per service and kind: 3 services x 7 kinds x 25 = 525 requests in all."""


@pytest.fixture(scope="module")
def services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Services]:
    with running_services(tmp_path_factory.mktemp("fuzz")) as started:
        yield started


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("service_name", SERVICE_NAMES)
def test_fuzzed_requests_get_sound_answers(
    services: Services, service_name: str, kind: str
) -> None:
    service = services[service_name]
    output_mark = service.output_size()
    sent: list[bytes] = []

    @settings(
        max_examples=EXAMPLES_PER_KIND,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(body=body_kinds(service.methods)[kind])
    def answers_soundly(body: bytes) -> None:
        sent.append(body)
        response = service.post(body)
        assert answer_problems(response, body) == [], body[:500]
        assert service.process.popen.poll() is None, f"{service_name} died on {body[:500]!r}"

    answers_soundly()
    assert len(sent) >= EXAMPLES_PER_KIND, f"hypothesis sent only {len(sent)} bodies"
    assert service.healthy(), f"{service_name} is not healthy after the {kind} fuzz"
    printed = service.output_since(output_mark)
    assert not any(mark in printed for mark in TRACEBACK_MARKS), printed[-3000:]
