"""Saved runs joined to their scenarios, and each pair scored into its per-run report.

Join: a trajectory joins the scenario named by its `scenario_id`, or, when it has none, by its
file name stem (`34.json` -> `34`); failing that, by its `run_id` (for a `scenario_id` that is a
descriptive label). Every trajectory for a scenario is scored.

`score_pair` never raises for bad data: an unreadable run or scenario, or any exception the
scorer raises, becomes that run's error entry. It is plain and picklable, so the runner maps it
over worker processes.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import StructsimError
from .saved_runs import Trajectory
from .scenarios import Scenario
from .scorers import get_scorer

logger = logging.getLogger(__name__)

__all__ = ["Pair", "join_records", "score_pair"]


@dataclass(frozen=True)
class Pair:
    """A trajectory joined to its scenario, and the key that joined them."""

    trajectory: Trajectory
    scenario: Scenario
    joined_by: str


def join_records(
    trajectories: Iterable[Trajectory], scenarios: Iterable[Scenario]
) -> tuple[list[Pair], list[Trajectory], list[Scenario]]:
    """Join trajectories to scenarios by `scenario_id` (or the file name stem when it has none), then `run_id`.

    Returns:
        The pairs (in trajectory order), the trajectories no key joined, and the scenarios
        no trajectory joined.
    """
    by_id = {scenario.id: scenario for scenario in scenarios}
    pairs: list[Pair] = []
    unmatched: list[Trajectory] = []
    for trajectory in trajectories:
        first = ("scenario_id", trajectory.scenario_id) if trajectory.scenario_id is not None else None
        for joined_by, key in (first or ("filename", trajectory.stem), ("run_id", trajectory.run_id)):
            if key and key in by_id:  # a folder entry (no stem) joins nothing
                pairs.append(Pair(trajectory, by_id[key], joined_by))
                break
        else:
            unmatched.append(trajectory)
    used = {pair.scenario.id for pair in pairs}
    return pairs, unmatched, [scenario for scenario in by_id.values() if scenario.id not in used]


def score_pair(pair: Pair, *, scorer: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """Score one pair; the per-run report as a dict. Plain and picklable, so it maps over a pool.

    Never raises for bad data: an unreadable trajectory or scenario, a pair the scorer refuses
    (`ValueError`, `TypeError`, `StructsimError`), or any other exception the scorer raises
    (named with its class), gives `status: "error"`, `passed` False, `score` 0.0 and the
    message under `error`. Only `KeyboardInterrupt` and `SystemExit` pass through.
    """
    trajectory, scenario = pair.trajectory, pair.scenario
    report: dict[str, Any] = {
        "scenario_id": scenario.id,
        "scenario_type": scenario.type,
        "scenario_folder": scenario.folder,
        "run_id": trajectory.run_id,
        "runner": trajectory.runner,
        "model": trajectory.model,
        "question": trajectory.question,
        "answer": trajectory.answer,
        "trajectory_file": trajectory.file,
        "joined_by": pair.joined_by,
        "ops": trajectory.ops,
    }
    error = trajectory.error or scenario.error
    if error is None:
        try:
            result = get_scorer(scorer)(
                scenario.groundtruth or "",
                trajectory.answer or "",
                evaluation_metadata=scenario.evaluation_metadata,
                options=options,
            )
        except (StructsimError, ValueError, TypeError) as exc:
            error = str(exc) or type(exc).__name__
        except Exception as exc:  # noqa: BLE001 - isolated per pair: a scorer's bug is this run's error entry
            error = f"the scorer raised {type(exc).__name__}: {exc}"
        else:
            report.update(status="scored", error=None, score=result.to_dict())
            logger.debug("scenario=<%s>, passed=<%s> | scored trajectory", scenario.id, result.passed)
            return report
    logger.debug("scenario=<%s>, error=<%s> | trajectory not scored", scenario.id, error)
    report.update(
        status="error",
        error=error,
        score={"scorer": scorer, "passed": False, "score": 0.0, "rationale": error, "details": {}},
    )
    return report
