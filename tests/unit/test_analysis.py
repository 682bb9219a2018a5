"""Analysis of a results folder: runs as JSON, batch means, comparison tables and exports."""

from __future__ import annotations

import io
import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy.stats import t as student_t

from schedlab.errors import ConfigError
from schedlab.experiments.analysis import (
    BATCH_METRICS,
    LONG_COLUMNS,
    RUN_KEYS,
    batch_means,
    batch_summaries,
    comparison_table,
    format_estimate,
    over_seeds,
    policy_label,
    runs_json,
)
from schedlab.experiments.config import RunConfig
from schedlab.experiments.runner import execute_run
from schedlab.experiments.store import ResultStore
from schedlab.metrics.summary import SUMMARY_KEYS

SEEDS = (1, 2, 3)
LOADS = (0.8, 1.2)
POLICIES: tuple[tuple[str, dict[str, Any]], ...] = (("easy", {}), ("fcfs", {}))
# label -> (model spec without seed, label written in the config or None)
WORKLOADS = {
    "lub-a": ("lublin:jobs=600,procs=32", "lub-a"),
    "lublin:jobs=400,procs=16": ("lublin:jobs=400,procs=16", None),  # label derived
}
BATCH = 100  # jobs per batch in these tests (600-job runs: 6 batches, 400-job runs: 4)


def run_config(
    spec: str,
    policy: str,
    *,
    seed: int | None,
    load_factor: float = 1.0,
    params: dict[str, Any] | None = None,
    label: str | None = None,
    procs: int | None = None,
) -> dict[str, Any]:
    """A run's configuration dict as the sweep builds it (the seed inside the model spec)."""
    workload = spec if seed is None else f"{spec},seed={seed}"
    config = RunConfig(
        workload=workload,
        policy=policy,
        params=params or {},
        load_factor=load_factor,
        seed=seed,
        procs=procs,
    ).to_dict()
    if label is not None:
        config["label"] = label
    return config


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> ResultStore:
    """2 workloads x 2 policies x 2 loads x 3 seeds, one lone run ("solo"), one failure."""
    root = tmp_path_factory.mktemp("results")
    with ResultStore(root) as st:
        for spec, label in WORKLOADS.values():
            for policy, params in POLICIES:
                for load in LOADS:
                    for seed in SEEDS:
                        config = run_config(
                            spec, policy, seed=seed, load_factor=load, params=params, label=label
                        )
                        outcome = execute_run(config)
                        assert outcome.ok, outcome.error
                        st.write(outcome)
        solo = execute_run(run_config("lublin:jobs=600,procs=32", "easy", seed=7, label="solo"))
        assert solo.ok
        st.write(solo)
        failed = execute_run(run_config("lublin:jobs=600,procs=32", "no-such-policy", seed=1))
        assert not failed.ok
        st.write(failed)
        st.write_catalog()
    return st


def cell(table: Any, workload: str, load: float, policy: str, metric: str) -> pd.Series:
    data = table.data
    rows = data[
        (data.workload == workload)
        & (data.load_factor == load)
        & (data.policy == policy)
        & (data.metric == metric)
    ]
    assert len(rows) == 1
    return rows.iloc[0]


# --- runs as JSON --------------------------------------------------------------------------


def test_runs_json_shape_keys_and_statuses(store: ResultStore) -> None:
    """--json lists every run: done runs with config + summary keys, failures with error."""
    runs = runs_json(store)["runs"]
    assert len(runs) == 2 * 2 * 2 * 3 + 1 + 1
    done = [r for r in runs if r["status"] == "done"]
    failed = [r for r in runs if r["status"] == "failed"]
    assert len(done) == 25 and len(failed) == 1
    for record in done:
        assert list(record) == [*RUN_KEYS, *SUMMARY_KEYS]
        assert isinstance(record["wall_time"], float) and record["wall_time"] >= 0
        assert record["jobs"] in (400, 600)
    assert list(failed[0]) == [*RUN_KEYS, "error"]
    assert failed[0]["policy"] == "no-such-policy"
    assert "no-such-policy" in failed[0]["error"]
    assert {r["workload"] for r in done} == {"lub-a", "lublin:jobs=400,procs=16", "solo"}
    assert {r["seed"] for r in done} == {1, 2, 3, 7}
    json.loads(json.dumps({"runs": runs}, allow_nan=False))


def test_runs_json_turns_nan_into_null(tmp_path: Path) -> None:
    """A NaN in a summary becomes null, so the output is strict JSON."""
    outcome = execute_run(run_config("lublin:jobs=50,procs=8", "easy", seed=1))
    assert outcome.summary is not None
    outcome.summary["mean_slowdown"] = float("nan")
    with ResultStore(tmp_path) as st:
        st.write(outcome)
    (record,) = runs_json(st)["runs"]
    assert record["mean_slowdown"] is None
    json.dumps(runs_json(st), allow_nan=False)


# --- estimates -----------------------------------------------------------------------------


def test_over_seeds_matches_hand_computed_t_interval() -> None:
    """Over seeds: mean +- t(0.975, n-1) * s / sqrt(n), s with ddof = 1."""
    values = [3.0, 5.0, 4.0, 8.0]
    est = over_seeds(values)
    mean = sum(values) / 4
    s = math.sqrt(sum((v - mean) ** 2 for v in values) / 3)
    assert est.mean == pytest.approx(mean)
    assert est.half_width == pytest.approx(student_t.ppf(0.975, 3) * s / 2)
    assert est.n == 4
    est90 = over_seeds(np.array(values), confidence=0.9)
    assert est90.half_width == pytest.approx(student_t.ppf(0.95, 3) * s / 2)
    assert est90.low == pytest.approx(mean - est90.half_width)


def test_over_seeds_with_one_value_has_no_interval() -> None:
    """One replication gives its value and a NaN half-width; none gives NaN."""
    est = over_seeds([2.5])
    assert est.mean == 2.5 and math.isnan(est.half_width) and est.n == 1
    assert math.isnan(over_seeds([]).mean)


def test_batch_means_matches_hand_computation() -> None:
    """Three batches of 10: the mean and t interval of the three batch means."""
    values = np.arange(30.0)
    est = batch_means(values, batch_size=10)
    batch = np.array([4.5, 14.5, 24.5])
    assert est.n_batches == 3
    assert est.mean == pytest.approx(14.5)
    expected = student_t.ppf(0.975, 2) * batch.std(ddof=1) / math.sqrt(3)
    assert est.half_width == pytest.approx(expected)


def test_batch_means_drops_the_partial_batch() -> None:
    """A trailing partial batch is ignored; under 2 batches there is no interval."""
    full = batch_means(np.arange(30.0), batch_size=10)
    assert batch_means(np.arange(35.0), batch_size=10) == full
    one = batch_means(np.arange(15.0), batch_size=10)
    assert one.n_batches == 1 and one.mean == 4.5 and math.isnan(one.half_width)
    none = batch_means(np.arange(5.0), batch_size=10)
    assert none.n_batches == 0 and math.isnan(none.mean)


def test_bad_batch_size_and_confidence_are_config_errors() -> None:
    """Batch size < 1 and a confidence outside (0, 1) are refused by name."""
    with pytest.raises(ConfigError, match="batch size"):
        batch_means(np.arange(10.0), batch_size=0)
    with pytest.raises(ConfigError, match="confidence"):
        over_seeds([1.0, 2.0], confidence=95)


def test_batch_summaries_per_batch_metrics(store: ResultStore) -> None:
    """Per-batch wait is the batch mean of wait_time; utilization is that of the batch alone."""
    run_id = next(r["run_id"] for r in runs_json(store)["runs"] if r["workload"] == "solo")
    jobs = store.jobs(run_id)
    per_batch = batch_summaries(jobs, procs=32, batch_size=BATCH)
    assert len(per_batch) == 6
    waits = jobs["wait_time"].to_numpy()
    assert per_batch["mean_wait_time"].tolist() == pytest.approx(
        waits.reshape(6, BATCH).mean(axis=1).tolist()
    )
    first = jobs.iloc[:BATCH]
    span = first["finished_at"].max() - first["submitted_at"].min()
    work = (first["procs"] * first["run_time"]).sum()
    assert per_batch["utilization"].iloc[0] == pytest.approx(work / (32 * span))
    bsld = np.maximum(
        (first["finished_at"] - first["submitted_at"]) / np.maximum(first["run_time"], 10.0), 1.0
    )
    assert per_batch["mean_bounded_slowdown"].iloc[0] == pytest.approx(bsld.mean())
    est = batch_means(waits, batch_size=BATCH)
    assert est == over_seeds(per_batch["mean_wait_time"].to_numpy())


# --- labels --------------------------------------------------------------------------------


def test_policy_label_shows_non_default_parameters() -> None:
    """Default parameters are hidden; others, and kill_on_overrun off, are shown."""
    assert policy_label("easy", {"backfill_order": "fcfs"}) == "easy"
    assert policy_label("easy", {"backfill_order": "sjf"}) == "easy(backfill_order=sjf)"
    assert policy_label("fcfs", {}, kill_on_overrun=False) == "fcfs(kill_on_overrun=False)"
    assert policy_label("third-party", {"x": 1.0}) == "third-party(x=1.0)"


def test_format_estimate() -> None:
    """Four significant digits, the half-width with as many decimals, n/a for NaN."""
    assert format_estimate(12.3456, 0.4123) == "12.35 ± 0.41"
    assert format_estimate(0.81234, float("nan")) == "0.8123"
    assert format_estimate(123456.7, 2345.6) == "123457 ± 2346"
    assert format_estimate(float("nan"), 1.0) == "n/a"


# --- comparison table ----------------------------------------------------------------------


def test_comparison_table_rows_and_columns(store: ResultStore) -> None:
    """Rows are (workload, load factor), columns the policies; model seeds are not rows."""
    table = comparison_table(store, batch_size=BATCH)
    expected_rows = [
        ("lub-a", 0.8),
        ("lub-a", 1.2),
        ("lublin:jobs=400,procs=16", 0.8),
        ("lublin:jobs=400,procs=16", 1.2),
        ("solo", 1.0),
    ]
    assert list(table.rows) == expected_rows
    assert table.policies == ("easy", "fcfs")
    wide = table.to_frame("mean_wait_time")
    assert list(wide.index) == expected_rows
    assert list(wide.columns) == ["easy", "fcfs"]
    assert wide.loc[("solo", 1.0), "fcfs"] == "–"  # never run
    assert " ± " in wide.loc[("lub-a", 0.8), "easy"]
    both = table.to_frame()
    assert both.columns.nlevels == 2 and len(both.columns) == 3 * 2
    assert list(table.data.columns) == list(LONG_COLUMNS)
    assert len(table.data) == (2 * 2 * 2 + 1) * 3


def test_auto_uses_seeds_for_replicated_cells_and_batches_for_lone_runs(
    store: ResultStore,
) -> None:
    """auto: 3 seeds -> interval over seeds; one run -> batch means over its jobs."""
    table = comparison_table(store, batch_size=BATCH)
    replicated = cell(table, "lub-a", 0.8, "easy", "mean_wait_time")
    assert replicated["method"] == "seeds" and replicated["n"] == 3
    catalog = store.catalog()
    chosen = catalog[
        (catalog.workload == "lub-a") & (catalog.load_factor == 0.8) & (catalog.policy == "easy")
    ]
    expected = over_seeds(chosen["mean_wait_time"].to_numpy())
    assert replicated["mean"] == pytest.approx(expected.mean)
    assert replicated["half_width"] == pytest.approx(expected.half_width)
    lone = cell(table, "solo", 1.0, "easy", "utilization")
    assert lone["method"] == "batch" and lone["n"] == 6
    run_id = catalog.loc[catalog.workload == "solo", "run_id"].item()
    per_batch = batch_summaries(store.jobs(run_id), procs=32, batch_size=BATCH)
    assert lone["mean"] == pytest.approx(per_batch["utilization"].mean())


def test_lone_run_shorter_than_a_batch_has_no_interval(store: ResultStore) -> None:
    """With the default 5000-job batches a 600-job lone run gives its value, no interval."""
    table = comparison_table(store, metrics=["mean_wait_time", "makespan"])
    for metric in ("mean_wait_time", "makespan"):
        row = cell(table, "solo", 1.0, "easy", metric)
        assert row["method"] == "single" and math.isnan(row["half_width"])
    solo = next(r for r in runs_json(store)["runs"] if r["workload"] == "solo")
    assert cell(table, "solo", 1.0, "easy", "makespan")["mean"] == solo["makespan"]


def test_batch_method_pools_batches_of_all_seeds(store: ResultStore) -> None:
    """method="batch": every cell is estimated from the batches of all its runs."""
    table = comparison_table(store, method="batch", batch_size=BATCH)
    assert set(table.data["method"]) == {"batch"}
    assert cell(table, "lub-a", 1.2, "fcfs", "mean_bounded_slowdown")["n"] == 3 * 6
    assert cell(table, "lublin:jobs=400,procs=16", 0.8, "easy", "utilization")["n"] == 3 * 4


def test_unknown_metric_method_and_batch_only_metrics_are_refused(store: ResultStore) -> None:
    """Bad metric or method names, and batch means of a whole-run maximum, raise ConfigError."""
    with pytest.raises(ConfigError, match="metric"):
        comparison_table(store, metrics=["mean_weight"])
    with pytest.raises(ConfigError, match="method"):
        comparison_table(store, method="bootstrap")
    with pytest.raises(ConfigError, match="batch means"):
        comparison_table(store, metrics=["max_wait_time"], method="batch")
    assert "max_wait_time" not in BATCH_METRICS


def test_rows_split_by_machine_size(tmp_path: Path) -> None:
    """Runs of one label on different machine sizes become separate rows."""
    spec = "lublin:jobs=60,procs=16"
    with ResultStore(tmp_path) as st:
        for procs in (None, 32):
            st.write(execute_run(run_config(spec, "easy", seed=1, label="w", procs=procs)))
    table = comparison_table(st)
    assert [w for w, _ in table.rows] == ["w", "w (procs=32)"]


# --- exports -------------------------------------------------------------------------------


def test_csv_round_trips_with_pandas(store: ResultStore, tmp_path: Path) -> None:
    """The CSV is the long numeric form; pandas reads back the same frame."""
    table = comparison_table(store, batch_size=BATCH)
    back = pd.read_csv(io.StringIO(table.to_csv() or ""))
    pd.testing.assert_frame_equal(back, table.data, check_exact=False, rtol=1e-12)
    path = tmp_path / "table.csv"
    assert table.to_csv(path) is None
    assert pd.read_csv(path).shape == table.data.shape


def test_markdown_has_one_row_per_workload_and_load(store: ResultStore) -> None:
    """Per metric: a heading, a header row, an alignment row, then one row per row key."""
    table = comparison_table(store, batch_size=BATCH)
    text = table.to_markdown()
    sections = text.split("### ")[1:]
    assert [s.splitlines()[0] for s in sections] == list(table.metrics)
    for section in sections:
        lines = [line for line in section.splitlines() if line.startswith("|")]
        assert lines[0] == "| workload | load factor | easy | fcfs |"
        assert len(lines) == 2 + len(table.rows)
        assert all(line.count("|") == 5 for line in lines)
    assert "| lub-a | 0.8 |" in text


def test_latex_is_plausible_booktabs(store: ResultStore) -> None:
    """One balanced booktabs tabular per metric with underscores escaped."""
    text = comparison_table(store, batch_size=BATCH).to_latex()
    body = "\n".join(line for line in text.splitlines() if not line.startswith("%"))
    assert body.count("\\begin{tabular}") == body.count("\\end{tabular}") == 3
    assert body.count("\\toprule") == body.count("\\bottomrule") == 3
    unescaped = re.sub(r"\\[{}]", "", body)
    assert unescaped.count("{") == unescaped.count("}")
    assert re.search(r"(?<!\\)_", body) is None
    assert "mean\\_wait\\_time" in body and "\\pm" in body
    for line in body.splitlines():
        if line.startswith("lub-a"):
            assert line.endswith("\\\\") and line.count("&") == 3


def test_rich_tables_one_per_metric(store: ResultStore) -> None:
    """The CLI gets one rich table per metric, under its label (issue 23: not its key), with
    workload, load and a column per policy; no width: as wide as it needs, not pivoted."""
    from rich.table import Table

    shown = comparison_table(store, batch_size=BATCH).rich_tables()
    tables = [t for t in shown if isinstance(t, Table)]
    assert [t.title for t in tables] == ["mean wait", "mean bounded slowdown", "utilization"]
    assert all(len(t.columns) == 4 and t.row_count == 5 for t in tables)
