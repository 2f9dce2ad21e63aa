"""Game-theoretic analysis of the league's games, usable without any service.

Equilibria (``equilibria``, ``zero_sum``, ``approximate``), best responses and
exploitability (``exploitability`` for normal-form games, ``repeated`` for repeated ones),
welfare, the prices of anarchy and stability and Pareto optimality (``welfare``), bias
across identity labels or framings (``bias``),
metrics of match histories (``history``, ``cooperation``, ``metrics``), population dynamics
(``dynamics``, ``stability``), ratings (``ratings``) and confidence intervals of means
(``intervals``). ``doc/analysis.md`` describes each
function with an example.

``import games`` does not import this package: services that only play games never load
scipy, openskill or pygambit (pygambit is imported only in the solver's worker process).
"""

from __future__ import annotations

from games.analysis.approximate import ApproximateEquilibrium, approximate_equilibrium
from games.analysis.bias import BiasTest, label_bias
from games.analysis.cooperation import COOPERATION, CooperationNotion, cooperation_levels
from games.analysis.dynamics import (
    MoranResult,
    ReplicatorTrajectory,
    fixation_probability,
    moran_process,
    replicator_dynamics,
)
from games.analysis.equilibria import (
    Equilibrium,
    EquilibriumSet,
    all_equilibria,
    one_equilibrium,
)
from games.analysis.errors import AnalysisError, SolverError, SolverTimeoutError
from games.analysis.exploitability import (
    BestResponse,
    NashConv,
    StrategyExploitability,
    best_response,
    exploitability,
    nash_conv,
    strategy_exploitability,
)
from games.analysis.history import (
    EpisodeRecorder,
    History,
    Stage,
    history_from_match,
    match_players,
    record_episode,
)
from games.analysis.intervals import IntervalMethod, MeanInterval, mean_interval
from games.analysis.memory_one import MemoryOne
from games.analysis.metrics import (
    Fairness,
    PlayerPayoff,
    average_payoffs,
    cooperation_rates,
    empirical_profile,
    fairness,
    gini,
    nash_distance,
    reciprocity,
    stage_game,
)
from games.analysis.nash_subsets import NashDistance, NashSubset, distance_to_nash
from games.analysis.normal_form import NormalFormGame
from games.analysis.ratings import (
    BayesianRating,
    EloRatings,
    LeagueRecord,
    bayesian_ratings,
    elo_ratings,
    record_from_match,
)
from games.analysis.repeated import Deviation, RepeatedExploitability, repeated_exploitability
from games.analysis.stability import (
    Stability,
    evolutionarily_stable_strategies,
    is_evolutionarily_stable,
)
from games.analysis.welfare import (
    Welfare,
    optimal_profiles,
    pareto_frontier,
    pareto_optimal,
    pure_equilibria,
    social_welfare,
    welfare_analysis,
)
from games.analysis.zero_sum import ZeroSumSolution, solve_zero_sum

__all__ = [
    "COOPERATION",
    "AnalysisError",
    "ApproximateEquilibrium",
    "BayesianRating",
    "BestResponse",
    "BiasTest",
    "CooperationNotion",
    "Deviation",
    "EloRatings",
    "EpisodeRecorder",
    "Equilibrium",
    "EquilibriumSet",
    "Fairness",
    "History",
    "IntervalMethod",
    "LeagueRecord",
    "MeanInterval",
    "MemoryOne",
    "MoranResult",
    "NashConv",
    "NashDistance",
    "NashSubset",
    "NormalFormGame",
    "PlayerPayoff",
    "RepeatedExploitability",
    "ReplicatorTrajectory",
    "SolverError",
    "SolverTimeoutError",
    "Stability",
    "Stage",
    "StrategyExploitability",
    "Welfare",
    "ZeroSumSolution",
    "all_equilibria",
    "approximate_equilibrium",
    "average_payoffs",
    "bayesian_ratings",
    "best_response",
    "cooperation_levels",
    "cooperation_rates",
    "distance_to_nash",
    "elo_ratings",
    "empirical_profile",
    "evolutionarily_stable_strategies",
    "exploitability",
    "fairness",
    "fixation_probability",
    "gini",
    "history_from_match",
    "is_evolutionarily_stable",
    "label_bias",
    "match_players",
    "mean_interval",
    "moran_process",
    "nash_conv",
    "nash_distance",
    "one_equilibrium",
    "optimal_profiles",
    "pareto_frontier",
    "pareto_optimal",
    "pure_equilibria",
    "reciprocity",
    "record_episode",
    "record_from_match",
    "repeated_exploitability",
    "replicator_dynamics",
    "social_welfare",
    "solve_zero_sum",
    "stage_game",
    "strategy_exploitability",
    "welfare_analysis",
]
