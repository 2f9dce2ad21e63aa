"""JSON Schemas of every league.v2 message, generated from the SDK's models.

The schemas are pydantic's *validation*-mode schemas: they describe what our agents accept,
which is what another implementer has to send us. (The serialization-mode schemas are the
same except that they lose ``format: date-time`` on timestamps, since those serialize
through a plain function; validation mode also keeps every bound and enum a receiver
enforces.) Three facts the models enforce in code are written into the schemas:

- ``protocol`` is the constant ``league.v2`` and ``message_type`` the message's own type;
- the envelope fields the protocol requires (protocol, message_type, sender, timestamp,
  conversation_id) are listed as required, although a lenient league fills in missing ones
  (doc/protocol.md, "Lenient and strict leagues");
- timestamps must be UTC: ``Z`` or ``+00:00``, fractions allowed (we send whole seconds).

``additionalProperties: true`` stays: unknown fields are kept, never refused.

Regenerate doc/schemas/ with ``league schemas`` (writes doc/schemas/ by default).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from sdk.messages import MESSAGE_MODELS, PROTOCOL, Message

__all__ = [
    "SCHEMA_DIALECT",
    "SCHEMA_SUFFIX",
    "UTC_TIMESTAMP_PATTERN",
    "message_schema",
    "message_schemas",
    "render_schema",
    "write_schemas",
]

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_SUFFIX = ".schema.json"
UTC_TIMESTAMP_PATTERN = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|\+00:00)$"
_REQUIRED_ENVELOPE = ("protocol", "message_type", "sender", "timestamp", "conversation_id")


class _WireSchema(GenerateJsonSchema):
    """Pydantic's generator, with the UTC rule on every timestamp."""

    def datetime_schema(self, schema: core_schema.DatetimeSchema) -> JsonSchemaValue:
        json_schema = super().datetime_schema(schema)
        json_schema["pattern"] = UTC_TIMESTAMP_PATTERN
        json_schema["description"] = (
            "UTC, ISO-8601: ...Z or ...+00:00, fractions allowed; sent as YYYY-MM-DDTHH:MM:SSZ"
        )
        return json_schema


def message_schema(model: type[Message]) -> dict[str, Any]:
    """The JSON Schema of one message model (see the module docstring for what it adds)."""
    schema = model.model_json_schema(mode="validation", schema_generator=_WireSchema)
    properties = schema["properties"]
    properties["protocol"] = {"const": PROTOCOL, "title": "Protocol", "type": "string"}
    properties["message_type"] = {
        "const": model.MESSAGE_TYPE,
        "title": "Message Type",
        "type": "string",
    }
    required = [name for name in schema.get("required", []) if name not in _REQUIRED_ENVELOPE]
    schema["required"] = [*_REQUIRED_ENVELOPE, *required]
    schema["$schema"] = SCHEMA_DIALECT
    schema.setdefault("description", f"The league.v2 {model.MESSAGE_TYPE} message.")
    return schema


def message_schemas() -> dict[str, dict[str, Any]]:
    """The schema of every message in MESSAGE_MODELS, by message_type."""
    return {message_type: message_schema(model) for message_type, model in MESSAGE_MODELS.items()}


def render_schema(schema: dict[str, Any]) -> str:
    """The committed text of a schema: sorted keys, two-space indent, a trailing newline."""
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_schemas(folder: Path) -> list[Path]:
    """Write ``<MESSAGE_TYPE>.schema.json`` for every message into ``folder`` and delete
    schema files of messages that no longer exist. Returns the files written, sorted."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for message_type, schema in sorted(message_schemas().items()):
        path = folder / f"{message_type}{SCHEMA_SUFFIX}"
        path.write_text(render_schema(schema), encoding="utf-8")
        written.append(path)
    for stale in set(folder.glob(f"*{SCHEMA_SUFFIX}")) - set(written):
        stale.unlink()
    return written
