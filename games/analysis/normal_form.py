"""A finite game in normal form as one payoff array, and mixed strategy profiles over it.

Every solver of ``games.analysis`` takes a ``NormalFormGame``: ``payoffs[a1, …, an, i]`` is
player i's payoff when player j plays its action ``aj``. It is built from bimatrices, from a
zero-sum matrix, from a registered table game (``games.matrix.PayoffTable``) or from a
repeated matrix game (``games.matrix_games.MatrixGame``), so the same functions serve the
league's games and any table a user types.

Solvers are given ``normalised()``: each player's payoffs mapped onto [0, 1]. Nash
equilibria, best responses and maxmin strategies do not change under a positive affine map
of one player's payoffs, while floating-point solvers work to absolute tolerances: 1e6
added to every payoff made pygambit's LCP return profiles that are no equilibria.

    >>> game = NormalFormGame.bimatrix([[3, 0], [5, 1]], [[3, 5], [0, 1]])
    >>> game.shape, game.num_players
    ((2, 2), 2)
    >>> game.expected_payoffs([[1, 0], [0, 1]]).tolist()
    [0.0, 5.0]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from games.analysis.errors import AnalysisError
from games.matrix import PayoffTable
from games.matrix_games import MatrixGame

__all__ = [
    "NormalFormGame",
    "Profile",
    "check_profile",
    "check_strategy",
    "payoff_spread",
    "unit_payoffs",
]

Profile = Sequence[ArrayLike]
"""One mixed strategy per player, each a probability vector over that player's actions."""

_PROBABILITY_TOLERANCE = 1e-6


@dataclass(frozen=True, eq=False)
class NormalFormGame:
    """A finite n-player game: a read-only payoff array and each player's action names."""

    payoffs: NDArray[Any]
    """Shape ``(*shape, num_players)``: the payoff of every player at every pure profile."""
    actions: tuple[tuple[str, ...], ...]

    def __post_init__(self) -> None:
        payoffs = np.array(self.payoffs, dtype=np.float64)
        if payoffs.ndim < 3 or payoffs.shape[-1] != payoffs.ndim - 1:
            raise AnalysisError(
                f"payoffs must have shape (*actions, players) with one axis "
                f"per player (at least two), got {payoffs.shape}"
            )
        if min(payoffs.shape[:-1]) < 1:
            raise AnalysisError(f"every player needs at least one action, got {payoffs.shape}")
        if not np.all(np.isfinite(payoffs)):
            raise AnalysisError("payoffs must be finite numbers")
        shape = payoffs.shape[:-1]
        if tuple(len(acts) for acts in self.actions) != shape:
            raise AnalysisError(f"the action names {self.actions} do not match the shape {shape}")
        payoffs.setflags(write=False)
        object.__setattr__(self, "payoffs", payoffs)

    @classmethod
    def from_arrays(
        cls, arrays: Sequence[ArrayLike], actions: Sequence[Sequence[str]] | None = None
    ) -> NormalFormGame:
        """One payoff array per player, each of shape ``(*actions)``, as pygambit takes them."""
        stacked = np.stack([np.asarray(a, dtype=np.float64) for a in arrays], axis=-1)
        return cls(stacked, _names(stacked.shape[:-1], actions))

    @classmethod
    def bimatrix(
        cls, row: ArrayLike, column: ArrayLike, actions: Sequence[Sequence[str]] | None = None
    ) -> NormalFormGame:
        """A 2-player game: ``row[i][j]`` and ``column[i][j]`` are the two payoffs."""
        row_array, column_array = np.asarray(row, float), np.asarray(column, float)
        if row_array.ndim != 2 or row_array.shape != column_array.shape:
            raise AnalysisError(
                f"a bimatrix game needs two matrices of one shape, got "
                f"{row_array.shape} and {column_array.shape}"
            )
        return cls.from_arrays([row_array, column_array], actions)

    @classmethod
    def zero_sum(
        cls, matrix: ArrayLike, actions: Sequence[Sequence[str]] | None = None
    ) -> NormalFormGame:
        """The 2-player zero-sum game in which the row player gets ``matrix[i][j]``."""
        array = np.asarray(matrix, dtype=np.float64)
        return cls.bimatrix(array, -array, actions)

    @classmethod
    def symmetric(cls, matrix: ArrayLike, actions: Sequence[str] | None = None) -> NormalFormGame:
        """The symmetric 2-player game of a population payoff matrix: ``matrix[i][j]`` is
        what strategy i earns against j (a tournament's ``payoff_matrix``)."""
        array = np.asarray(matrix, dtype=np.float64)
        if array.ndim != 2 or array.shape[0] != array.shape[1]:
            raise AnalysisError(f"a symmetric game needs a square matrix, got {array.shape}")
        names = None if actions is None else [list(actions), list(actions)]
        return cls.bimatrix(array, array.T, names)

    @classmethod
    def from_table(cls, table: PayoffTable) -> NormalFormGame:
        """A registered table game's stage game (``games.matrix.PayoffTable``)."""
        shape = tuple(len(acts) for acts in table.actions)
        payoffs = np.empty((*shape, table.num_players))
        for index in np.ndindex(*shape):
            profile = tuple(table.actions[seat][i] for seat, i in enumerate(index))
            payoffs[index] = table.payoffs[profile]
        return cls(payoffs, table.actions)

    @classmethod
    def from_matrix_game(cls, game: MatrixGame) -> NormalFormGame:
        """The stage game of a repeated matrix game (``games.matrix_games``)."""
        return cls(np.asarray(game.payoffs, dtype=np.float64), (game.actions, game.actions))

    @property
    def shape(self) -> tuple[int, ...]:
        """The number of actions of each player."""
        return tuple(self.payoffs.shape[:-1])

    @property
    def num_players(self) -> int:
        return len(self.shape)

    @property
    def scale(self) -> float:
        """The spread of all the payoffs (``payoff_spread``): tolerances are relative to it."""
        return payoff_spread(self.payoffs)

    @property
    def spreads(self) -> NDArray[Any]:
        """Each player's payoff spread, shape (num_players,): what a gain in ``normalised()``
        is multiplied by to be one of this game's."""
        return np.array([payoff_spread(self.payoff_array(i)) for i in range(self.num_players)])

    def normalised(self) -> NormalFormGame:
        """The same game with each player's payoffs mapped onto [0, 1] (``unit_payoffs``;
        a player whose payoffs are all equal, indifferent, gets 0 everywhere): same
        equilibria and best responses, numbers of one size for the solvers."""
        unit = np.stack(
            [unit_payoffs(self.payoff_array(i)) for i in range(self.num_players)], axis=-1
        )
        return NormalFormGame(unit, self.actions)

    def payoff_array(self, player: int) -> NDArray[Any]:
        """``player``'s payoffs alone, shape ``self.shape``."""
        return self.payoffs[..., self._check_player(player)]

    def action_values(self, profile: Profile, player: int, *, checked: bool = True) -> NDArray[Any]:
        """What each of ``player``'s pure actions earns against the others' mixed
        strategies in ``profile`` (``player``'s own entry is not read). ``checked=False``
        skips the profile's validation, for loops over strategies already checked."""
        strategies = (
            check_profile(self, profile) if checked else tuple(np.asarray(s) for s in profile)
        )
        values = self.payoff_array(player)
        for other in reversed(range(self.num_players)):
            if other != player:
                values = np.tensordot(values, strategies[other], axes=([other], [0]))
        return np.asarray(values, dtype=np.float64)

    def expected_payoffs(self, profile: Profile) -> NDArray[Any]:
        """Every player's expected payoff under the mixed profile, shape (num_players,)."""
        strategies = check_profile(self, profile)
        return np.array(
            [
                float(self.action_values(strategies, i, checked=False) @ strategies[i])
                for i in range(self.num_players)
            ]
        )

    def _check_player(self, player: int) -> int:
        if not 0 <= player < self.num_players:
            raise AnalysisError(
                f"player {player} does not play this {self.num_players}-player game"
            )
        return player


def payoff_spread(payoffs: ArrayLike) -> float:
    """The range of ``payoffs`` (largest minus smallest), or 1 when they are all equal: the
    unit of a game's tolerances, so that they scale with its payoffs."""
    return float(np.ptp(np.asarray(payoffs, dtype=np.float64))) or 1.0


def unit_payoffs(payoffs: ArrayLike) -> NDArray[Any]:
    """``payoffs`` mapped onto [0, 1] by x ↦ (x − min) / ``payoff_spread`` (all 0 when they
    are all equal): what a solver is given, whatever the scale of the payoffs."""
    array = np.asarray(payoffs, dtype=np.float64)
    unit: NDArray[Any] = (array - array.min()) / payoff_spread(array)
    return unit


def _names(
    shape: tuple[int, ...], actions: Sequence[Sequence[str]] | None
) -> tuple[tuple[str, ...], ...]:
    if actions is None:
        return tuple(tuple(str(i) for i in range(size)) for size in shape)
    return tuple(tuple(str(a) for a in acts) for acts in actions)


def check_strategy(strategy: ArrayLike, size: int, what: str = "a strategy") -> NDArray[Any]:
    """``strategy`` as a probability vector of length ``size`` (tiny rounding renormalised).

    Raises:
        AnalysisError: a wrong length, a negative entry, or entries that do not sum to 1.
    """
    vector = np.asarray(strategy, dtype=np.float64)
    if vector.shape != (size,):
        raise AnalysisError(f"{what} needs {size} probabilities, got shape {vector.shape}")
    if not np.all(np.isfinite(vector)) or vector.min() < -_PROBABILITY_TOLERANCE:
        raise AnalysisError(f"{what} has a negative or non-finite probability: {vector}")
    total = vector.sum()
    if abs(total - 1.0) > _PROBABILITY_TOLERANCE:
        raise AnalysisError(f"the probabilities of {what} sum to {total:g}, not 1")
    clipped = np.clip(vector, 0.0, None)
    normalised: NDArray[Any] = clipped / clipped.sum()
    return normalised


def check_profile(game: NormalFormGame, profile: Profile) -> tuple[NDArray[Any], ...]:
    """``profile`` as one checked probability vector per player of ``game``.

    Raises:
        AnalysisError: a wrong number of strategies, or one that is not a distribution
            over its player's actions.
    """
    if len(profile) != game.num_players:
        raise AnalysisError(
            f"a profile of this game has {game.num_players} strategies, got {len(profile)}"
        )
    return tuple(
        check_strategy(s, size, f"the strategy of player {i}")
        for i, (s, size) in enumerate(zip(profile, game.shape, strict=True))
    )
