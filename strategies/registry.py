"""Strategies by name: the ones registered with ``@register_strategy("name")`` and any class
or function named by a ``package.module:attribute`` path, so a student's strategy plays
without editing this package.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeGuard, TypeVar

from games.strategies import baseline_names
from strategies.base import FunctionStrategy, Strategy
from strategies.baseline import Baseline
from strategies.errors import StrategyError

__all__ = [
    "StrategyFactory",
    "build_strategy",
    "known_strategies",
    "ready_strategies",
    "register_strategy",
    "resolve_strategy",
    "strategy_summaries",
]

StrategyFactory = Callable[..., Strategy]
"""Builds a strategy from its options (keyword arguments)."""

_T = TypeVar("_T")
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
_STRATEGIES: dict[str, Any] = {}


def _is_strategy_class(target: object) -> TypeGuard[type[Strategy]]:
    return inspect.isclass(target) and issubclass(target, Strategy)


def _same_definition(a: Any, b: Any) -> bool:
    """The same class or function, even if its module was imported (or exec'd) again."""
    return (getattr(a, "__module__", None), getattr(a, "__qualname__", None)) == (
        getattr(b, "__module__", None),
        getattr(b, "__qualname__", None),
    )


def register_strategy(name: str) -> Callable[[_T], _T]:
    """Register a ``Strategy`` subclass or a ``def f(view) -> str`` function under ``name``.

    Raises:
        StrategyError: the name is malformed or taken by another strategy, or the target is
            neither a Strategy subclass nor a function.
    """
    if not _NAME.match(name):
        raise StrategyError(
            f"strategy name {name!r} must be letters, digits, '_', '.' or '-' (':' marks a path)"
        )

    def decorate(target: _T) -> _T:
        if inspect.isclass(target) and not _is_strategy_class(target):
            raise StrategyError(f"{target.__qualname__} is a class but not a Strategy subclass")
        if not callable(target):
            raise StrategyError(f"{target!r} is neither a Strategy subclass nor a function")
        existing = _STRATEGIES.get(name)
        if existing is not None and not _same_definition(existing, target):
            raise StrategyError(
                f"a strategy named {name!r} is registered already "
                f"({existing.__module__}.{existing.__qualname__})"
            )
        if _is_strategy_class(target):
            target.name = name
        _STRATEGIES[name] = target
        return target

    return decorate


def known_strategies() -> list[str]:
    """The registered names, sorted."""
    return sorted(_STRATEGIES)


def ready_strategies(game_type: str) -> list[str]:
    """The registered strategy classes made for ``game_type`` (or for any game) that answer
    at once (``classifier.inline``): the opponents a service can seat without a model or a
    person behind them. Those for any game first, each part sorted."""
    ready = [
        (bool(target.game_types), name)
        for name, target in _STRATEGIES.items()
        if _is_strategy_class(target)
        and target.classifier.inline
        and (not target.game_types or game_type in target.game_types)
    ]
    return [name for _, name in sorted(ready)]


def strategy_summaries() -> dict[str, str]:
    """Each registered name with the first line of its docstring (for help texts)."""
    return {
        name: (inspect.getdoc(target) or "").split("\n", 1)[0]
        for name, target in sorted(_STRATEGIES.items())
    }


def _on_path(directory: Path) -> bool:
    return any(Path(entry or ".").resolve() == directory for entry in sys.path)


def _import(module_name: str) -> Any:
    """Import a module; a module in the working directory is found too (the ``league``
    command does not put the working directory on ``sys.path``)."""
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name.split(".")[0]:
            raise
        cwd = Path.cwd().resolve()
        if not _on_path(cwd):
            sys.path.append(str(cwd))
        importlib.invalidate_caches()
        return importlib.import_module(module_name)


def _load(path: str) -> Any:
    module_name, _, attribute = path.partition(":")
    if not module_name or not attribute:
        raise StrategyError(f"strategy path {path!r} is not 'package.module:attribute'")
    try:
        target: Any = _import(module_name)
    except ModuleNotFoundError as exc:
        raise StrategyError(f"cannot import {module_name!r} for strategy {path!r}: {exc}") from exc
    except Exception as exc:
        raise StrategyError(
            f"importing {module_name!r} for strategy {path!r} failed: {type(exc).__name__}: {exc}"
        ) from exc
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise StrategyError(f"module {module_name!r} has no attribute {attribute!r}") from None
    if inspect.isclass(target) and not _is_strategy_class(target):
        raise StrategyError(f"{path!r} is a class but not a strategies.Strategy subclass")
    if not callable(target):
        raise StrategyError(f"{path!r} is neither a Strategy subclass nor a function")
    return target


def resolve_strategy(name: str) -> StrategyFactory:
    """The factory for a registered name or a ``package.module:attribute`` path.

    Raises:
        StrategyError: unknown name (the message lists the known ones), or a bad path.
    """
    if ":" in name:
        target = _load(name)
    else:
        target = _STRATEGIES.get(name)
        if target is None and name in baseline_names():
            return functools.partial(Baseline, name)
        if target is None:
            raise StrategyError(
                f"unknown strategy {name!r}; known strategies: {', '.join(known_strategies())}; "
                f"baselines of games/: {', '.join(baseline_names())} "
                "(or 'package.module:attribute' for your own)"
            )
    if _is_strategy_class(target):
        return target

    def function_strategy() -> Strategy:
        return FunctionStrategy(target, name)

    return function_strategy


def build_strategy(name: str, options: Mapping[str, Any] | None = None) -> Strategy:
    """A ready strategy: resolved by name and built with ``options``.

    Raises:
        StrategyError: the name does not resolve, or the strategy refuses the options.
    """
    factory = resolve_strategy(name)
    given = dict(options or {})
    signature = inspect.signature(factory)
    try:
        signature.bind(**given)
    except TypeError:
        accepted = [
            p.name
            for p in signature.parameters.values()
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        ]
        takes = ", ".join(accepted) if accepted else "no options"
        raise StrategyError(
            f"strategy {name!r} does not take the options {sorted(given)}; it takes: {takes}"
        ) from None
    try:
        return factory(**given)
    except Exception as exc:
        raise StrategyError(f"strategy {name!r} refused its options {given}: {exc}") from exc
