"""The ``llm`` strategy's options: strategy options first, then ``LEAGUE_LLM_*`` variables,
then defaults; bad values are refused when the player starts, not mid-match."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

__all__ = ["ENV_PREFIX", "LlmOptions"]

ENV_PREFIX = "LEAGUE_LLM_"
"""``base_url`` is read from ``LEAGUE_LLM_BASE_URL``, and so on for every field."""


class LlmOptions(BaseModel):
    """How to reach the model and how to play when it fails."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    base_url: str = Field(default="https://api.openai.com/v1", min_length=1)
    """The API root; requests go to ``{base_url}/chat/completions`` (Ollama:
    ``http://127.0.0.1:11434/v1``, vLLM and llama.cpp: ``http://HOST:PORT/v1``)."""
    model: str = Field(default="gpt-4o-mini", min_length=1)
    api_key: SecretStr | None = None
    """Sent as ``Authorization: Bearer``; ``OPENAI_API_KEY`` is read when unset. Local
    servers need none."""
    temperature: float = Field(default=0.0, ge=0, le=2)
    max_tokens: int = Field(default=256, ge=1, le=32_768)
    default_move: Any = None
    """The declared fallback move; when unset or illegal at a stage, what a careful player
    would play there (``strategies.llm.careful``)."""
    safety_margin_sec: float = Field(default=2.0, ge=0, le=60)
    """Stop waiting for the model this long before the move's deadline (more than the
    host's ``decision_margin_sec``, so the declared default move is sent, not a random one)."""
    prompt_dir: Path | None = None
    """A folder of prompt files that override the shipped ones, file by file."""

    @field_validator("base_url")
    @classmethod
    def _http(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError(f"base_url must be an http(s) URL, not {value!r}")
        return value.rstrip("/")

    @field_validator("prompt_dir")
    @classmethod
    def _folder(cls, value: Path | None) -> Path | None:
        if value is not None and not value.is_dir():
            raise ValueError(f"prompt_dir {value} is not a folder")
        return value

    @classmethod
    def resolve(
        cls, given: Mapping[str, Any], environ: Mapping[str, str] | None = None
    ) -> LlmOptions:
        """Options from ``given`` (None means unset), else ``LEAGUE_LLM_<FIELD>``.

        Raises:
            pydantic.ValidationError: a value is refused.
        """
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for name in cls.model_fields:
            if given.get(name) is not None:
                values[name] = given[name]
                continue
            raw = env.get(ENV_PREFIX + name.upper())
            if raw is not None and raw != "":
                values[name] = _json_or_text(raw) if name == "default_move" else raw
        if "api_key" not in values and env.get("OPENAI_API_KEY"):
            values["api_key"] = env["OPENAI_API_KEY"]
        return cls(**values)


def _json_or_text(raw: str) -> Any:
    """``LEAGUE_LLM_DEFAULT_MOVE=[50,50]`` is a list, ``=C`` the string ``"C"``."""
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw
