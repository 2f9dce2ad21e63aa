"""Prompt files and what they are filled with: only the player's view.

Files (``string.Template``, ``$name`` placeholders), looked up first in the user's
``prompt_dir`` then in ``strategies/prompts/``:

- ``<game_type>.txt``, else ``default.txt``: the system message of a match;
- ``<game_type>.turn.txt``, else ``turn.txt``: the user message of each move;
- ``clarify.txt``: the one follow-up after an answer that is not a legal move;
- ``answer_format.txt``: how to answer (``$answer_format`` in the others);
- ``rules/<game_type>.txt``, else the game's guide (its rules and moves in words, and a
  matrix game's payoff table: ``model_rules``): ``$rules``.
"""

from __future__ import annotations

import json
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from games.matrix import two_player_table
from games.registry import UnknownGameError, load_game
from games.spec import ActionSpace
from strategies.view import MoveView

__all__ = ["SHIPPED_PROMPTS", "PromptBook", "describe_moves", "model_rules"]

SHIPPED_PROMPTS = Path(__file__).resolve().parent.parent / "prompts"

SYSTEM_FIELDS = frozenset(
    {"game_type", "game_name", "rules", "player_id", "role", "opponent_id", "answer_format"}
)
TURN_FIELDS = frozenset(
    {
        "match_id",
        "round",
        "record",
        "observation",
        "messages",
        "legal_moves",
        "seconds_left",
        "deadline",
    }
)
CLARIFY_FIELDS = frozenset({"answer", "legal_moves", "answer_format"})
FORMAT_FIELDS = frozenset({"example"})


def model_rules(game_type: str) -> str:
    """A game's rules as a model reads them: its guide's sentences (``games.guide``, the
    text the ``/play`` page shows a person), each move and what it does, and a two-player
    matrix game's payoff table; "" for a game this host does not know."""
    try:
        spec = load_game(game_type)
    except UnknownGameError:
        return ""
    if spec.guide is None:
        return ""
    choices = {str(choice) for choice in spec.valid_choices}
    lines = [spec.guide.rules]
    if "first player" in spec.guide.rules:
        lines.append("The first player is PLAYER_A, the second PLAYER_B.")
    lines += ["", "Moves:"]
    for meaning in spec.guide.moves:
        move = json.dumps(meaning.move) if meaning.move in choices else "a number or list"
        lines.append(f"- {meaning.name} ({move}): {meaning.meaning}")
    table = two_player_table(spec)
    if table is not None:
        rows, columns = table.actions
        lines += [
            "",
            "Payoffs: a row is the first player's move (PLAYER_A), a column the second "
            "player's (PLAYER_B); each cell is the first player's payoff, then the second's.",
            " | ".join(["A \\ B", *columns]),
            *(
                " | ".join([row, *(_pair(table.payoffs[row, column]) for column in columns)])
                for row in rows
            ),
        ]
    return "\n".join(lines)


def _pair(payoff: tuple[float, ...]) -> str:
    return ", ".join(f"{value:g}" for value in payoff)


def describe_moves(space: ActionSpace) -> str:
    """The legal moves in words a model reads easily."""
    if space.kind == "choice":
        return "one of " + ", ".join(json.dumps(choice) for choice in space.choices)
    if space.kind == "number":
        kind = "a whole number" if space.integer else "a number"
        low, high = (int(b) if float(b).is_integer() else b for b in (space.low, space.high))
        return f"{kind} from {low} to {high}"
    return f"a JSON list of {space.size} whole numbers, each 0 or more, that sum to {space.total}"


@dataclass(frozen=True)
class _File:
    name: str
    fields: frozenset[str]


class PromptBook:
    """The prompt files of one player, checked when it starts (a placeholder we cannot
    fill is a start-up error, not a fallback on every move)."""

    def __init__(self, override_dir: Path | None = None):
        self._dirs = [d for d in (override_dir, SHIPPED_PROMPTS) if d is not None]
        self._cache: dict[str, string.Template | None] = {}
        for folder in self._dirs:
            for path in sorted(folder.glob("*.txt")):
                self._check(path.name, self._fields_of(path.name))

    @staticmethod
    def _fields_of(name: str) -> frozenset[str]:
        if name == "clarify.txt":
            return CLARIFY_FIELDS
        if name == "answer_format.txt":
            return FORMAT_FIELDS
        if name.endswith(".turn.txt") or name == "turn.txt":
            return TURN_FIELDS
        return SYSTEM_FIELDS

    def _check(self, name: str, fields: frozenset[str]) -> None:
        template = self._template(name)
        if template is None:
            return
        names, valid = _placeholders(template)
        if not valid:
            raise ValueError(
                f"prompt file {name}: a '$' that is not a placeholder (write $$ for a dollar sign)"
            )
        unknown = sorted(names - fields)
        if unknown:
            raise ValueError(
                f"prompt file {name}: unknown placeholders {unknown}; it may use {sorted(fields)}"
            )

    def _template(self, name: str) -> string.Template | None:
        if name not in self._cache:
            found = next((d / name for d in self._dirs if (d / name).is_file()), None)
            self._cache[name] = (
                string.Template(found.read_text(encoding="utf-8")) if found else None
            )
        return self._cache[name]

    def _first(self, *names: str) -> string.Template:
        for name in names:
            template = self._template(name)
            if template is not None:
                return template
        raise FileNotFoundError(
            f"no prompt file {' or '.join(names)} in {', '.join(map(str, self._dirs))}"
        )

    def rules(self, game_type: str) -> str:
        template = self._template(f"rules/{game_type}.txt")
        return template.template.strip() if template else model_rules(game_type)

    def answer_format(self, example: Any) -> str:
        return self._first("answer_format.txt").substitute(example=json.dumps(example)).strip()

    def system(self, view: MoveView, example: Any) -> str:
        try:
            game_name = load_game(view.game_type).display_name
        except UnknownGameError:
            game_name = view.game_type
        return (
            self._first(f"{view.game_type}.txt", "default.txt")
            .substitute(
                game_type=view.game_type,
                game_name=game_name,
                rules=self.rules(view.game_type),
                player_id=view.player_id,
                role=view.role or "not stated",
                opponent_id=view.opponent_id or "not stated",
                answer_format=self.answer_format(example),
            )
            .strip()
        )

    def turn(self, view: MoveView, budget_sec: float) -> str:
        """The move's message: the observation exactly as the referee sent it."""
        record = view.my_record
        said = "\n".join(
            f"{note.get('player_id', '?')} said: {note.get('text', '')}" for note in view.messages
        )
        return (
            self._first(f"{view.game_type}.turn.txt", "turn.txt")
            .substitute(
                match_id=view.match_id,
                round=view.round_id if view.round_id is not None else "-",
                record=f"{record.wins} wins, {record.draws} draws, {record.losses} losses",
                observation=json.dumps(view.observation, sort_keys=True, default=str),
                messages=f"Messages from the other players:\n{said}" if said else "",
                legal_moves=describe_moves(view.space()),
                seconds_left=f"{max(budget_sec, 0):.0f}",
                deadline=view.deadline.isoformat(),
            )
            .strip()
        )

    def clarify(self, answer: str, space: ActionSpace, example: Any) -> str:
        return (
            self._first("clarify.txt")
            .substitute(
                answer=" ".join(answer.split())[:200],
                legal_moves=describe_moves(space),
                answer_format=self.answer_format(example),
            )
            .strip()
        )


def _placeholders(template: string.Template) -> tuple[set[str], bool]:
    """A template's placeholder names, and whether every '$' in it is one (or '$$'): what
    ``Template.get_identifiers`` and ``is_valid`` say on Python 3.11+, read from the same
    pattern (Python 3.10 has neither)."""
    names: set[str] = set()
    valid = True
    for found in template.pattern.finditer(template.template):
        name = found.group("named") or found.group("braced")
        if name is not None:
            names.add(name)
        elif found.group("invalid") is not None:
            valid = False
    return names, valid
