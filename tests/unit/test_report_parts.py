"""The report's building blocks: the Gantt drawing, step-function smoothing, SVG embedding,
the page's structure, and the figure files (tests/experiments/test_report.py covers the
page's content and the CLI; tests/browser/ renders it in Chromium)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from schedlab.errors import ConfigError
from schedlab.experiments.config import RunConfig
from schedlab.experiments.runner import execute_run
from schedlab.experiments.store import ResultStore

figures = pytest.importorskip("schedlab.report.figures")
drawing = pytest.importorskip("schedlab.report.drawing")

SECTIONS = ("summary", "tables", "bars", "cdf", "timeseries", "gantt", "configs")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> ResultStore:
    """2 model workloads x fcfs/easy/conservative x 2 seeds, and one failed run."""
    root = tmp_path_factory.mktemp("results")
    with ResultStore(root) as results:
        for spec, label in (
            ("lublin:jobs=200,procs=32", "small"),
            ("lublin:jobs=200,procs=64", "wide"),
        ):
            for policy in ("fcfs", "easy", "conservative"):
                for seed in (1, 2):
                    run = RunConfig(workload=f"{spec},seed={seed}", policy=policy, seed=seed)
                    results.write(execute_run({**run.to_dict(), "label": label}))
        results.write(execute_run({"workload": "lublin:jobs=10,procs=8", "policy": "nope"}))
        results.write_catalog()
    return ResultStore(root)


@pytest.fixture(scope="module")
def page(store: ResultStore, tmp_path_factory: pytest.TempPathFactory) -> str:
    from schedlab.report.html import write_report

    out = tmp_path_factory.mktemp("page") / "report.html"
    return write_report(store.root, out).read_text(encoding="utf-8")


class _Page(HTMLParser):
    """Figures (and the <svg> elements and drawn paths inside each), sections, ids, links."""

    def __init__(self) -> None:
        super().__init__()
        self.figures: list[dict[str, int | str]] = []
        self.sections: list[str] = []
        self.ids: list[str] = []
        self.refs: list[str] = []
        self.external: list[str] = []
        self.body: dict[str, str | None] = {}
        self._in_figure = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "body":
            self.body = a
        if tag == "section":
            self.sections.append(a.get("id") or "")
        if tag == "figure" and "chart" in (a.get("class") or "").split():
            self.figures.append({"name": a.get("data-chart") or "", "svg": 0, "paths": 0})
            self._in_figure = True
        if self._in_figure and tag == "svg":
            self.figures[-1]["svg"] = int(self.figures[-1]["svg"]) + 1
        if self._in_figure and tag == "path" and (a.get("d") or "").strip():
            self.figures[-1]["paths"] = int(self.figures[-1]["paths"]) + 1
        if "id" in a:
            self.ids.append(a["id"] or "")
        for key in ("href", "xlink:href", "src"):
            value = a.get(key) or ""
            if value.startswith("#"):
                self.refs.append(value[1:])
            elif re.match(r"(https?:)?//", value):
                self.external.append(value)
        self.refs += re.findall(r"url\(#([^)]+)\)", " ".join(v or "" for v in a.values()))

    def handle_endtag(self, tag: str) -> None:
        if tag == "figure":
            self._in_figure = False


def test_page_has_every_section_and_one_drawn_svg_per_figure(page: str) -> None:
    """Every section; each chart is one <svg> with drawn paths; the count the page states
    (body data-figures, the browser test's reference) is the number of charts."""
    parsed = _Page()
    parsed.feed(page)
    assert parsed.sections == list(SECTIONS)
    # bars x 3, then per workload x load (2): 2 CDFs + queue + utilization, then 1 Gantt
    assert len(parsed.figures) == 3 + 2 * 4 + 1
    assert parsed.body.get("data-figures") == str(len(parsed.figures))
    for figure in parsed.figures:
        assert figure["svg"] == 1, figure
        assert int(figure["paths"]) > 5, figure
    names = [str(f["name"]) for f in parsed.figures]
    assert len(set(names)) == len(names)


def test_page_ids_are_unique_and_every_reference_resolves(page: str) -> None:
    """Inline SVGs share one id space: each figure's ids are prefixed, so no two elements
    share an id and every #ref / url(#ref) (clip paths, markers, nav links) resolves."""
    parsed = _Page()
    parsed.feed(page)
    assert len(parsed.ids) == len(set(parsed.ids))
    assert set(parsed.refs) <= set(parsed.ids), set(parsed.refs) - set(parsed.ids)
    assert parsed.external == []
    assert "<script" not in page


def test_config_table_lists_every_run_with_the_error_of_failed_ones(
    store: ResultStore, page: str
) -> None:
    """Every run id (done and failed) is in the configuration section, with the error."""
    configs = page[page.index('<section id="configs">') :]
    for run_id in store.done_ids() | store.failed_ids():
        assert run_id in configs
    assert "ConfigError" in configs and "traceback" in configs


def test_text_is_escaped(page: str) -> None:
    """Text from the results (here the failed run's error, which quotes 'nope') is escaped."""
    assert "invalid value &#x27;nope&#x27; for policy" in page


def test_figures_save_as_png_svg_pdf_reproducibly(store: ResultStore, tmp_path: Path) -> None:
    """PNG magic bytes; an SVG whose root is <svg>; PDF and SVG without dates: same bytes."""
    run_id = sorted(store.done_ids())[0]
    png = figures.save(figures.gantt(store, run_id), tmp_path / "g.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for ext in ("svg", "pdf"):
        a = figures.save(figures.cdf(store, [run_id], "bounded_slowdown"), tmp_path / f"a.{ext}")
        b = figures.save(figures.cdf(store, [run_id], "bounded_slowdown"), tmp_path / f"b.{ext}")
        assert a.read_bytes() == b.read_bytes(), ext
    assert ET.parse(tmp_path / "a.svg").getroot().tag == "{http://www.w3.org/2000/svg}svg"
    with pytest.raises(ConfigError, match="figure path"):
        figures.save(figures.gantt(store, run_id), tmp_path / "g.jpg")


def test_bad_arguments_name_the_option(store: ResultStore) -> None:
    """Unknown metric, quantity or run: ConfigError naming what was wrong."""
    with pytest.raises(ConfigError, match="metric"):
        figures.metric_bars(store.catalog(), "speed")
    with pytest.raises(ConfigError, match="what"):
        figures.timeseries(store, sorted(store.done_ids())[:1], "temperature")
    with pytest.raises(ConfigError, match="run_id"):
        figures.gantt(store, "0000000000000000")


def test_gantt_window_is_cut_to_max_jobs(store: ResultStore) -> None:
    """With more jobs than max_jobs in the window, it ends where the next job starts."""
    run_id = sorted(store.done_ids())[0]
    fig = figures.gantt(store, run_id, max_jobs=25)
    title = fig.axes[0].get_title()
    assert "25 jobs" in title and "window cut" in title and "not the simulated" in title


def _overlaps(started: np.ndarray, finished: np.ndarray, bands: list) -> list[tuple[int, int]]:
    cells: dict[int, list[tuple[float, float, int]]] = {}
    for j, blocks in enumerate(bands):
        for first, count in blocks:
            for row in range(first, first + count):
                cells.setdefault(row, []).append((started[j], finished[j], j))
    clashes = []
    for spans in cells.values():
        spans.sort()
        for (_s1, f1, j1), (s2, _f2, j2) in zip(spans, spans[1:]):
            if s2 < f1:
                clashes.append((j1, j2))
    return clashes


def test_processor_bands_never_overlap_and_give_each_job_its_procs(store: ResultStore) -> None:
    """The first-fit drawing of a real run: no two bars share a row at the same time, every
    row is within the machine, and each job covers exactly its processor count."""
    for run_id in sorted(store.done_ids())[:4]:
        jobs = store.jobs(run_id)
        total = int(store.summary(run_id)["procs"])
        started = jobs["started_at"].to_numpy(float)
        finished = jobs["finished_at"].to_numpy(float)
        procs = jobs["procs"].to_numpy(int)
        bands, _split = drawing.processor_bands(started, finished, procs, total)
        assert _overlaps(started, finished, bands) == []
        for blocks, p in zip(bands, procs):
            assert sum(count for _, count in blocks) == p
            assert all(first >= 0 and first + count <= total for first, count in blocks)


def test_processor_bands_prefers_one_block_and_splits_when_fragmented() -> None:
    """Hand-made, 3 rows: three 1-proc jobs fill rows 0, 1, 2; at t=1 rows 0 and 2 are free
    again but row 1 is not, so a 2-proc job is drawn over rows 0 and 2 (split once)."""
    started = np.array([0.0, 0.0, 0.0, 1.0])
    finished = np.array([1.0, 5.0, 1.0, 2.0])
    procs = np.array([1, 1, 1, 2])
    bands, split = drawing.processor_bands(started, finished, procs, 3)
    assert bands[:3] == [[(0, 1)], [(1, 1)], [(2, 1)]]
    assert bands[3] == [(0, 1), (2, 1)] and split == 1


def test_smooth_step_keeps_the_area_and_a_constant() -> None:
    """Bin means keep the integral of the step function; a moving mean of a constant is it."""
    rng = np.random.default_rng(3)
    times = np.cumsum(rng.uniform(1, 100, 5000))
    values = rng.integers(0, 50, 5000).astype(float)
    xs, ys, is_step = drawing.smooth_step(times, values, max_points=200)
    assert is_step and len(xs) == 201
    area = np.sum(values[:-1] * np.diff(times))
    assert np.sum(ys[:-1] * np.diff(xs)) == pytest.approx(area, rel=1e-9)
    xs, ys, is_step = drawing.smooth_step(times, np.full(5000, 7.0), window=3600)
    assert not is_step and np.allclose(ys, 7.0)
    short = drawing.smooth_step(times[:10], values[:10])
    assert np.array_equal(short[0], times[:10]) and short[2]


def test_reproduction_figures_are_drawn_from_its_data_after_its_tables(tmp_path: Path) -> None:
    """A reproduction only computes; `draw_figures` draws what its ``figure_data`` holds and
    lists the files after the tables'; an unknown paper is a ConfigError naming the papers."""
    from schedlab.experiments.reproduce import REPRODUCTIONS
    from schedlab.experiments.reproduce.common import Reproduction
    from schedlab.report.reproduce import _DRAWERS, draw_figures

    assert set(_DRAWERS) == set(REPRODUCTIONS)
    parts = ("global_queue_time", "transfer_time", "local_queue_time", "run_time")
    result = Reproduction(
        "paper",
        rows=[],
        tables=[("t", ["a"], [["1"]])],
        figure_data={
            "means": {"tdcs": dict.fromkeys(parts, 1.0), "random": dict.fromkeys(parts, 2.0)},
            "horizon": [[1, 10.0, 20.0], [None, 12.0, 18.0]],
        },
    )
    result.write(tmp_path)
    paths = draw_figures("tdcs", result, tmp_path)
    assert [p.name for p in paths] == ["tdcs_components.svg", "tdcs_horizon.svg"]
    assert result.files[-2:] == paths and result.files[0].name == "rows.json"
    assert all(p.stat().st_size > 1000 for p in paths)
    with pytest.raises(ConfigError, match="dbf"):
        draw_figures("nope", result, tmp_path)
