"""The strategy tuner: an Optuna search of a strategy's parameters, confirmed on holdout decks.

- Objective: net points per hand of the tuned strategy against each opponent, averaged
  with equal weights (``objective="deals"``), or its Hollywood match win rate
  (``"matches"``). Every trial plays the same tuning decks (or matches): seed ``seed``,
  numbers 0 to ``deals - 1``, each deck twice with the seats swapped, so trials compare
  paired (common random numbers).
- Search: Optuna's TPE sampler. The tuning decks are cut into ``blocks`` equal blocks; after
  each block a trial reports its value so far, and a successive-halving pruner stops the
  weak ones early (at 2 and 4 blocks of 8 by default, keeping the better half each time).
  A trial whose parameters equal a finished trial's takes that trial's result (its value,
  or its blocks and pruning) without playing again.
- Storage: the study lives in the run folder (``study.db``, Optuna's SQLite storage) beside
  ``tune.json``, the configuration. Running the same configuration again resumes the study:
  finished trials (completed or pruned) count toward ``trials`` and are never played again;
  a trial cut short by Ctrl-C or a killed process is dropped and played anew. Each trial's
  sampler is seeded from ``seed`` and the number of trials finished before it, so a resumed
  study proposes exactly what an uninterrupted one would. Another configuration in the
  same folder is refused. The command holds the folder through ``claim_tuning``
  (``gin_sim.experiments.outputs``: one writer, nothing but a tune's files, a finished tune left as it
  is); ``study.db`` is checked read-only before Optuna opens it, and storage errors are
  one-line ``TuneError``s.
- Confirmation (``gin_sim.experiments.holdout``): the ``top`` best completed trials and the starting
  strategy play fresh holdout decks (or matches) from another seed stream; each candidate's
  gain over the starting strategy is paired by deck, with Bonferroni-adjusted intervals for
  the ``top`` comparisons. The winner is the candidate with the best holdout figure, so its
  holdout figure is the best of ``top`` and optimistic; the winner and the starting
  strategy then play as many decks (matches) of a third stream, and the winner's reported
  gain is that one, fixed before those decks were dealt.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from gin_sim.experiments.holdout import adjusted, confirmation_seed, holdout_seed
from gin_sim.experiments.outputs import (
    Claim,
    check_folder,
    claim_folder,
    is_report_file,
    lock_folder,
    make_folder,
    plain,
    unlock_folder,
)
from gin_sim.experiments.simulate import check_seed, head_to_head, head_to_head_matches
from gin_sim.experiments.space import Space, apply, parse_space
from gin_sim.experiments.summary import Estimate, Moments, seat_of
from gin_sim.game.config import (
    ConfigError,
    GinSimWarning,
    opened_user_file,
    parse_json,
    read_user_file,
)
from gin_sim.game.rules import Rules
from gin_sim.players.strategies import Strategy

OBJECTIVES = ("deals", "matches")
KIND = "tune"  # the kind of output in a tuning folder's owner record
CONFIG = "tune.json"
CONFIG_TEMPORARY = "tune.tmp"
STUDY = "study.db"
WINNER = "best.toml"
STUDY_NAME = "tune"
# Successive halving: rungs at 2 and 4 blocks (of 8), keeping the better half at each.
PRUNER_MIN_BLOCKS = 2
PRUNER_REDUCTION = 2


# A study of MAX_TRIALS trials takes some hundreds of megabytes: a larger study.db is not one.
MAX_STUDY_BYTES = 1 << 30


class TuneError(ConfigError):
    """A tuning folder or setting that cannot be used as asked."""


@dataclass(frozen=True)
class TuneSettings:
    """Everything that determines a study's trials (``trials`` only says when to stop)."""

    strategy: Strategy
    space: Space
    opponents: tuple[Strategy, ...]
    rules: Rules
    objective: str = "deals"
    deals: int = 20_000  # tuning decks (objective deals)
    matches: int = 2_000  # tuning matches (objective matches)
    blocks: int = 8
    seed: int = 1

    def __post_init__(self) -> None:
        if self.objective not in OBJECTIVES:
            raise ConfigError(f"objective {self.objective!r}: allowed {', '.join(OBJECTIVES)}")
        if not self.opponents:
            raise ConfigError("opponents: give one or more strategies, e.g. simple,expert")
        names = [o.name for o in self.opponents]
        if len(set(names)) != len(names):
            raise ConfigError(f"opponents {','.join(names)}: two of them have the same name")
        if self.blocks < 1:
            raise ConfigError(f"blocks = {self.blocks}: allowed 1 or more")
        count, what = self.units, "deals" if self.objective == "deals" else "matches"
        if count < 2 * self.blocks:
            raise ConfigError(
                f"{what} = {count}: allowed at least 2 per block ({2 * self.blocks} with {self.blocks} blocks)"
            )
        check_seed(self.seed)
        for opponent in self.opponents:
            opponent.for_rules(self.rules)

    @property
    def units(self) -> int:
        """Tuning decks or matches, by objective."""
        return self.deals if self.objective == "deals" else self.matches

    def block_range(self, block: int) -> tuple[int, int]:
        return block * self.units // self.blocks, (block + 1) * self.units // self.blocks

    def to_json(self) -> dict[str, Any]:
        document = {
            "strategy": self.strategy.to_config(),
            "space": self.space.text,
            "space_parsed": self.space.to_json(),
            "opponents": [o.to_config() for o in self.opponents],
            "rules": asdict(self.rules),
            "objective": self.objective,
            "blocks": self.blocks,
            "seed": self.seed,
        }
        document["deals" if self.objective == "deals" else "matches"] = self.units
        return document

    def candidate(self, parameters: dict[str, Any]) -> Strategy:
        """The starting strategy with ``parameters`` (as played under the rules)."""
        return apply(self.strategy, self.rules, parameters)


def settings_from(
    strategy: Strategy,
    space: str,
    opponents: Sequence[Strategy],
    rules: Rules,
    **options: Any,
) -> TuneSettings:
    """Settings with ``space`` parsed and checked against ``strategy`` under ``rules``."""
    return TuneSettings(
        strategy, parse_space(space, strategy, rules), tuple(opponents), rules, **options
    )


# -- playing a candidate ------------------------------------------------------------------
def net_by_deck(hands: pd.DataFrame) -> np.ndarray:
    """Net points of ``players[0]`` over each deck's hands, in deck order."""
    seat = seat_of(hands, 0)
    winner = hands["winner"].to_numpy()
    points = hands["points"].to_numpy().astype(np.int64)
    net = np.where(winner == seat, points, 0) - np.where(winner == 1 - seat, points, 0)
    return pd.Series(net).groupby(hands["deal"].to_numpy()).sum().to_numpy()


def wins_by_match(matches: pd.DataFrame) -> np.ndarray:
    """Matches won by ``players[0]`` (0 to 2 of the two plays), in match order."""
    won = matches["winner"].to_numpy() == seat_of(matches, 0)
    return pd.Series(won.astype(np.int64)).groupby(matches["match"].to_numpy()).sum().to_numpy()


def play_units(
    rules: Rules,
    strategy: Strategy,
    opponent: Strategy,
    objective: str,
    count: int,
    seed: int,
    first: int,
) -> np.ndarray:
    """Per deck (net points) or per match (wins) of ``strategy`` against ``opponent``."""
    if objective == "deals":
        return net_by_deck(head_to_head(rules, (strategy, opponent), count, seed, True, first))
    matches, _ = head_to_head_matches(rules, (strategy, opponent), count, seed, first_match=first)
    return wins_by_match(matches)


def block_values(settings: TuneSettings, strategy: Strategy) -> Iterator[float]:
    """The objective after each block of the tuning decks: the mean over opponents of the
    figure over the blocks played so far (net points per hand, or matches won per match)."""
    totals = np.zeros(len(settings.opponents))
    played = 0
    for block in range(settings.blocks):
        start, stop = settings.block_range(block)
        for number, opponent in enumerate(settings.opponents):
            totals[number] += play_units(
                settings.rules,
                strategy,
                opponent,
                settings.objective,
                stop - start,
                settings.seed,
                start,
            ).sum()
        played += stop - start
        yield float(totals.mean() / (2 * played))


# -- the study ----------------------------------------------------------------------------
class _OptunaLog(logging.Handler):
    """Optuna's log records as one-line gin-sim warnings. A failed trial's record is
    dropped: the error that failed it reaches the caller, which reports it itself (Ctrl-C
    included, whose traceback Optuna would otherwise print)."""

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if record.exc_info is not None or " failed with " in message:
            return
        warnings.warn(f"optuna: {message}", GinSimWarning, stacklevel=2)


@contextlib.contextmanager
def optuna_messages() -> Iterator[None]:
    """Run Optuna with its log and its Python warnings turned into one-line gin-sim
    warnings (each once); its experimental-feature notices are dropped."""
    import optuna

    optuna.logging.set_verbosity(logging.WARNING)
    optuna.logging.disable_default_handler()
    logger = logging.getLogger("optuna")
    handler = _OptunaLog(logging.WARNING)
    logger.addHandler(handler)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield
    finally:
        logger.removeHandler(handler)
        shown: set[str] = set()
        for warning in caught:
            if issubclass(warning.category, optuna.exceptions.ExperimentalWarning):
                continue
            if not (issubclass(warning.category, GinSimWarning) or _from_optuna(warning)):
                # another library's warning goes on as it came (the command line shows it)
                warnings.warn_explicit(
                    warning.message, warning.category, warning.filename, warning.lineno
                )
                continue
            text = str(warning.message)
            if not issubclass(warning.category, GinSimWarning):
                text = f"optuna: {text}"
            if text not in shown:
                shown.add(text)
                warnings.warn(text, GinSimWarning, stacklevel=3)


def _from_optuna(warning: warnings.WarningMessage) -> bool:
    return f"{os.sep}optuna{os.sep}" in str(warning.filename)


@contextlib.contextmanager
def study_errors(path: Path) -> Iterator[None]:
    """Errors of the study's storage (a damaged or locked database, a folder that cannot
    be written) as one-line ``TuneError``s naming the file."""
    import optuna
    import sqlalchemy.exc

    try:
        yield
    except (sqlalchemy.exc.SQLAlchemyError, optuna.exceptions.StorageInternalError) as error:
        cause = getattr(error, "orig", None) or error.__cause__ or error
        raise TuneError(
            f"cannot use the study {path}: {cause}; the trials it holds are kept (move it "
            "away to start afresh, or use another --out)"
        ) from None


def check_study_file(path: Path) -> None:
    """Refuse a ``study.db`` that is not an Optuna study of gin-sim's, before Optuna opens it:
    Optuna would add its tables to another database, or fail with a traceback on a damaged
    one. An empty file is a new study."""
    where = f"{path} is not a usable study"
    advice = "move it away to start the study afresh, or use another --out"
    try:
        with opened_user_file(path, MAX_STUDY_BYTES) as handle:  # never a FIFO's wait
            head = handle.read(16)
    except FileNotFoundError:
        return
    except ConfigError as error:  # a FIFO, a device, a file beyond the bound
        raise TuneError(f"{error}; {where}: {advice}") from None
    except OSError as error:
        raise TuneError(f"cannot read {path}: {error.strerror or error}") from None
    if not head:
        return  # an empty file is a new study
    if head != b"SQLite format 3\x00":
        raise TuneError(f"{where} (not an SQLite database: damaged or another file): {advice}")
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            check = connection.execute("PRAGMA quick_check").fetchone()[0]
            tables = {
                row[0]
                for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
            names = (
                {row[0] for row in connection.execute("SELECT study_name FROM studies")}
                if "studies" in tables
                else set()
            )
        finally:
            connection.close()
    except sqlite3.Error as error:
        raise TuneError(f"{where} (damaged: {error}): {advice}") from None
    if check != "ok":
        raise TuneError(f"{where} (damaged: {check}): {advice}")
    if tables and not {"studies", "trials", "version_info"} <= tables:
        raise TuneError(f"{where} (a database of something else): {advice}")
    if names - {STUDY_NAME}:
        raise TuneError(
            f"{where} (it holds other Optuna studies: {', '.join(sorted(names))}): {advice}"
        )


def check_config(settings: TuneSettings, folder: str | Path) -> bool:
    """Refuse a folder holding another tuning study (its ``tune.json``), reading only;
    True when it holds this study's configuration."""
    directory = Path(folder)
    config_path = directory / CONFIG
    if not config_path.exists():
        if (directory / STUDY).exists():
            raise TuneError(f"{directory} holds a {STUDY} but no {CONFIG}: use another --out")
        return False
    try:
        existing = parse_json(read_user_file(config_path), str(config_path))
    except (OSError, ValueError) as error:
        raise TuneError(f"{config_path} is damaged ({error}): use another --out") from None
    if not isinstance(existing, dict):
        raise TuneError(f"{config_path} is not a tuning study's settings: use another --out")
    document = plain(settings.to_json())
    if existing != document:
        keys = [
            k for k in document if not isinstance(existing, dict) or existing.get(k) != document[k]
        ]
        keys += [k for k in existing if k not in document] if isinstance(existing, dict) else []
        raise TuneError(
            f"{directory} holds another tuning study (different {', '.join(keys) or 'configuration'}): use another --out, or the same settings to resume it"
        )
    return True


def tuning_options(settings: TuneSettings, trials: int, top: int, holdout: int) -> dict[str, Any]:
    """What a tuning folder's owner record holds (``gin_sim.experiments.outputs``): the study's
    configuration and the options that decide the rest of its output."""
    return {"study": settings.to_json(), "trials": trials, "top": top, "holdout": holdout}


def is_tuning_file(name: str) -> bool:
    """The names a tune writes in its folder: the configuration, the study (with SQLite's
    journal files), best.toml and the report's files."""
    study = (STUDY, f"{STUDY}-journal", f"{STUDY}-wal", f"{STUDY}-shm")
    return name in (CONFIG, CONFIG_TEMPORARY, WINNER, *study) or is_report_file(name)


def claim_tuning(
    settings: TuneSettings, folder: str | Path, trials: int, top: int, holdout: int
) -> Claim:
    """Hold ``folder`` for this tune (``gin_sim.experiments.outputs``): new or empty, or gin-sim's tuning
    folder of the same study. Another study is refused, and so is a finished tune of other
    options; an unfinished one of this study goes on with the options now given (its
    trials are kept). Two tunes at once on one folder: the second is refused at once.
    ``claim.finished``: this command already finished there (nothing is to be written)."""
    check_config(settings, folder)
    options = tuning_options(settings, trials, top, holdout)
    # Judged before the claim takes the lock, which would leave its lock file in a folder
    # of a user's that is then refused.
    check_folder(folder, KIND, options, is_tuning_file, reclaim_unfinished=True)
    return claim_folder(folder, KIND, options, is_tuning_file, reclaim_unfinished=True)


def open_study(settings: TuneSettings, folder: str | Path) -> Any:
    """Create the study in ``folder`` or reopen it; another configuration is refused."""
    import optuna

    directory = Path(folder)
    make_folder(directory, "tuning folder")
    config_path = directory / CONFIG
    if not check_config(settings, directory):
        temporary = directory / CONFIG_TEMPORARY
        temporary.write_text(json.dumps(settings.to_json(), indent=2) + "\n")
        temporary.replace(config_path)
    path = directory / STUDY
    check_study_file(path)
    with study_errors(path):
        try:
            storage = optuna.storages.RDBStorage(f"sqlite:///{path.resolve()}")
        except RuntimeError as error:  # a schema of another Optuna version
            raise TuneError(f"{path} is not a usable study ({error}): use another --out") from None
        study = optuna.create_study(
            study_name=STUDY_NAME,
            storage=storage,
            direction="maximize",
            load_if_exists=True,
            pruner=optuna.pruners.SuccessiveHalvingPruner(
                min_resource=PRUNER_MIN_BLOCKS, reduction_factor=PRUNER_REDUCTION
            ),
        )
        if study.direction != optuna.study.StudyDirection.MAXIMIZE:
            raise TuneError(f"{path} is not a usable study (it minimises): use another --out")
        # A trial left running by a killed process is dropped: it is played again anew.
        for trial in study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.RUNNING,)):
            storage.set_trial_state_values(trial._trial_id, optuna.trial.TrialState.FAIL)
    return study


def finished_trials(study: Any) -> list[Any]:
    import optuna

    states = (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.PRUNED)
    return study.get_trials(deepcopy=False, states=states)


def trial_seed(seed: int, finished: int) -> int:
    """The TPE sampler's seed for the trial after ``finished`` finished ones."""
    return (seed * 1_000_003 + finished) % (1 << 32)


def optimise(
    settings: TuneSettings,
    folder: str | Path,
    trials: int,
    on_trial: Callable[[int, bool], None] | None = None,
    on_block: Callable[[int, int], None] | None = None,
) -> Any:
    """Run the study in ``folder`` until ``trials`` trials have finished; return it.

    ``on_trial(1, resumed)`` reports progress (finished trials found on resume first);
    ``on_block(trial_number, block)`` is called after each block a trial plays.
    """

    if trials < 1:
        raise ConfigError(f"trials = {trials}: allowed 1 or more")
    make_folder(Path(folder), "tuning folder")
    lock = lock_folder(Path(folder))  # one writer per study (taken again by a claim's holder)
    try:
        with optuna_messages():
            return _optimise(settings, Path(folder), trials, on_trial, on_block)
    finally:
        unlock_folder(lock)


def _optimise(
    settings: TuneSettings,
    folder: Path,
    trials: int,
    on_trial: Callable[[int, bool], None] | None,
    on_block: Callable[[int, int], None] | None,
) -> Any:
    import optuna

    study = open_study(settings, folder)
    done = len(finished_trials(study))
    if on_trial is not None and done:
        on_trial(min(done, trials), True)

    def objective(trial: Any) -> float:
        values = {d.name: d.suggest(trial) for d in settings.space.dimensions}
        strategy = settings.candidate(settings.space.parameters(values))
        for earlier in finished_trials(study):
            if earlier.params == trial.params and earlier.user_attrs.get("repeat_of", -1) < 0:
                trial.set_user_attr("repeat_of", earlier.number)
                if earlier.state == optuna.trial.TrialState.COMPLETE:
                    return float(earlier.value)
                for step, value in sorted(earlier.intermediate_values.items()):
                    trial.report(value, step)
                raise optuna.TrialPruned()
        value = float("nan")
        for block, value in enumerate(block_values(settings, strategy)):
            if on_block is not None:
                on_block(trial.number, block)
            trial.report(value, block + 1)
            if block + 1 < settings.blocks and trial.should_prune():
                raise optuna.TrialPruned()
        return value

    while done < trials:
        study.sampler = optuna.samplers.TPESampler(seed=trial_seed(settings.seed, done))
        with study_errors(folder / STUDY):
            study.optimize(objective, n_trials=1, catch=())
            now = len(finished_trials(study))
        if on_trial is not None and now > done:
            on_trial(now - done, False)
        done = now
    return study


def trials_table(study: Any, settings: TuneSettings) -> pd.DataFrame:
    """Every finished trial: number, state, value (a pruned trial's last block), blocks
    played, whether it repeated an earlier trial, and its parameters."""
    import optuna

    rows = []
    for trial in finished_trials(study):
        value = trial.value
        blocks = settings.blocks
        if trial.state == optuna.trial.TrialState.PRUNED:  # its last reported value
            blocks = max(trial.intermediate_values)
            value = trial.intermediate_values[blocks]
        rows.append(
            {
                "number": trial.number,
                "state": trial.state.name,
                "value": value,
                "blocks": blocks,
                "repeat_of": trial.user_attrs.get("repeat_of", -1),
            }
            | {name: trial.params.get(name) for name in (d.name for d in settings.space.dimensions)}
        )
    return pd.DataFrame.from_records(rows).sort_values("number").reset_index(drop=True)


def importances(study: Any) -> tuple[pd.DataFrame, str]:
    """Parameter importances and the method: fANOVA when scikit-learn is installed, else
    Optuna's PED-ANOVA (no extra dependency). Empty when there are too few completed trials."""
    import optuna

    try:
        import sklearn  # noqa: F401

        evaluator, method = optuna.importance.FanovaImportanceEvaluator(seed=0), "fANOVA"
    except ImportError:
        evaluator, method = optuna.importance.PedAnovaImportanceEvaluator(), "PED-ANOVA"
    try:
        with optuna_messages():
            values = optuna.importance.get_param_importances(study, evaluator=evaluator)
    except (ValueError, RuntimeError, ZeroDivisionError) as error:
        return pd.DataFrame(
            columns=["parameter", "importance"]
        ), f"{method} (not available: {error})"
    table = pd.DataFrame({"parameter": list(values), "importance": list(values.values())})
    return table, method


# -- confirmation on holdout decks ----------------------------------------------------------
@dataclass
class Confirmation:
    """The best trials re-measured on holdout decks against the starting strategy, and the
    winner (picked there) measured again on decks of a third stream."""

    seed: int  # of the holdout decks, on which the winner is picked
    count: int  # holdout decks or matches, and as many confirmation ones
    candidates: pd.DataFrame  # one row per candidate, best holdout figure first
    start: Estimate  # the starting strategy on the holdout decks
    winner: Strategy
    winner_parameters: dict[str, Any]
    final_seed: int  # of the confirmation decks, used for nothing else
    final_start: Estimate  # the starting strategy on them
    final_winner: Estimate  # the winner on them
    final_gain: Estimate  # the winner minus the start, paired: the reported gain


def top_candidates(
    study: Any, settings: TuneSettings, top: int
) -> list[tuple[int, dict[str, Any], float]]:
    """The ``top`` best completed trials with distinct parameters: (number, values, value)."""
    import optuna

    complete = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
    ranked = sorted(complete, key=lambda t: (-t.value, t.number))
    chosen: list[tuple[int, dict[str, Any], float]] = []
    seen: list[dict[str, Any]] = []
    for trial in ranked:
        if trial.params in seen:
            continue
        seen.append(trial.params)
        chosen.append((trial.number, dict(trial.params), float(trial.value)))
        if len(chosen) == top:
            break
    return chosen


def confirm(
    settings: TuneSettings,
    candidates: list[tuple[int, dict[str, Any], float]],
    count: int,
    on_candidate: Callable[[int], None] | None = None,
) -> Confirmation:
    """Play the starting strategy and every candidate on ``count`` holdout decks (or matches,
    by objective) against every opponent; gains over the start are paired by deck (match)
    and their intervals Bonferroni-adjusted for ``len(candidates)`` comparisons. The best
    holdout figure wins; the winner and the start then play ``count`` decks (matches) of
    the confirmation stream, which give the winner's reported gain."""
    if count < 2:
        raise ConfigError(f"holdout count = {count}: allowed 2 or more")
    if not candidates:
        raise TuneError("no completed trial to confirm: run more trials")
    seed = holdout_seed(settings.seed)

    def pooled(strategy: Strategy, stream: int) -> np.ndarray:
        parts = [
            play_units(settings.rules, strategy, o, settings.objective, count, stream, 0)
            for o in settings.opponents
        ]
        return np.mean(parts, axis=0)  # per deck (match): the opponents weighted equally

    start_strategy = settings.strategy.for_rules(settings.rules)
    start = pooled(start_strategy, seed)
    two = np.full(count, 2)
    rows = []
    for number, values, tuning_value in candidates:
        strategy = settings.candidate(settings.space.parameters(values))
        units = pooled(strategy, seed)
        figure = Moments.of(units, two).estimate()
        gain = adjusted(Moments.of(units - start, two).estimate(), len(candidates))
        rows.append(
            {
                "trial": number,
                "tuning_value": tuning_value,
                "holdout": figure.mean,
                "holdout_half_width": figure.half_width,
                "gain": gain.mean,
                "gain_half_width": gain.half_width,
                "gain_low": gain.mean - gain.half_width,
                "gain_high": gain.mean + gain.half_width,
                "significant": bool(
                    gain.mean - gain.half_width > 0 or gain.mean + gain.half_width < 0
                ),
                "same_as_start": strategy == start_strategy,
                "n": gain.n,
            }
            | values
        )
        if on_candidate is not None:
            on_candidate(1)
    table = pd.DataFrame.from_records(rows).sort_values(
        ["holdout", "trial"], ascending=[False, True]
    )
    table = table.reset_index(drop=True)
    best = table.iloc[0]
    values = {d.name: _plain(best[d.name]) for d in settings.space.dimensions}
    parameters = settings.space.parameters(values)
    winner = settings.candidate(parameters)
    final_seed = confirmation_seed(settings.seed)
    final_start = pooled(start_strategy, final_seed)
    final_winner = pooled(winner, final_seed)
    if on_candidate is not None:
        on_candidate(1)
    return Confirmation(
        seed,
        count,
        table,
        Moments.of(start, two).estimate(),
        winner,
        parameters,
        final_seed,
        Moments.of(final_start, two).estimate(),
        Moments.of(final_winner, two).estimate(),
        Moments.of(final_winner - final_start, two).estimate(),
    )


def _plain(value: Any) -> Any:
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


# -- the winner as a strategy file ----------------------------------------------------------
def toml_value(value: Any) -> str:
    """A value as TOML (booleans, strings, numbers, lists of them)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, tuple | list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return repr(value)


def strategy_toml(strategy: Strategy, comment: Sequence[str] = ()) -> str:
    """A strategy as a TOML file for ``configs/strategies`` or ``--players PATH``: the keys
    that differ from the family's defaults, then its ``[[adapt]]`` tables in order (the
    tuner writes the adapted form, ``gin-sim distill`` the base's tables and its own)."""
    # Every line of a comment is a TOML comment line, whatever line breaks it holds.
    lines = [f"# {part}".rstrip() for line in comment for part in str(line).splitlines() or [""]]
    # (a random strategy too: its file names it, and holds no key its kind ignores)
    defaults = Strategy(kind=strategy.kind).to_config()
    for key, value in strategy.to_config().items():
        if key == "adapt" or value is None or (key == "knock_schedule" and not value):
            continue
        if key not in ("name", "description", "kind") and defaults.get(key) == value:
            continue  # the family's default: the file lists what differs from it
        lines.append(f"{key} = {toml_value(value)}")
    for table in strategy.to_config()["adapt"]:
        when = ", ".join(f"{k} = {toml_value(v)}" for k, v in table["when"].items())
        lines += ["", "[[adapt]]", f"when = {{ {when} }}"]
        lines += [f"{k} = {toml_value(v)}" for k, v in table.items() if k != "when"]
    return "\n".join(lines) + "\n"
