"""The whole reproduction of paper 001 (Caron et al., 10 seeds, 4,040 runs; minutes):
`pytest -m reproduce`.

What is asserted is which of the paper's claims hold under which reading and local load
on the whole experiment (issue 25); docs/reproductions.md, "Push against DIRAC pull",
gives the measured values. Claims that need more than 3 seeds to settle (push's dedicated
makespan, the crossovers' values) are asserted here, not in the quick test.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from schedlab.experiments.reproduce.dirac import CONTEXTS, reproduce_dirac
from schedlab.report.reproduce import draw_figures

pytestmark = [pytest.mark.reproduce]


@pytest.fixture(scope="module")
def dirac(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, Any]]:
    out = Path(tmp_path_factory.mktemp("dirac"))
    result = reproduce_dirac(None, out)
    draw_figures("dirac", result, out)  # as `schedlab reproduce dirac` does
    data = result.to_json()
    return data, {c["name"]: c for c in data["claims"]}


def test_ties_to_free_processors_give_push_the_best_dedicated_makespan(
    dirac: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    """Section 8, "pour un Δt nul, le meilleur makespan est obtenu par l'approche
    centralisée": true in the dedicated context under the least-loaded reading, not under
    ties to the lowest site; push then also has the lowest dedicated mean response, so the
    paper's "filling pilots the best response" holds only with local jobs."""
    data, claims = dirac
    assert claims["best_makespan.dedicated"]["holds"]
    assert not claims["best_makespan.dedicated.tie_site"]["holds"]
    assert claims["lowest_mean_response_time.dedicated"]["ours"] == "push"
    for context in CONTEXTS:
        assert claims[f"largest_mean_wait_time.{context}"]["holds"], context
        if context != "dedicated":
            assert claims[f"lowest_mean_response_time.{context}"]["holds"], context
    assert data["dedicated"]["strategies"]["push"]["mean_wait_time"] < 10


def test_the_crossover_falls_with_the_local_load(
    dirac: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    """Figure 8: push's wait passes DIRAC's at 150-300 s dedicated under the main reading
    (below the paper's 95 s with ties to the lowest site); in the shared contexts the
    crossover falls with the local load, from thousands of seconds at Table 2's 87 s (load
    1.38) to 100-250 s at load 1.0, and only there near the paper's 60 s."""
    data, claims = dirac
    assert 150 < data["dedicated"]["crossover_refresh"] < 300
    assert data["dedicated"]["readings"]["tie_site"]["crossover_refresh"] < 95
    for reading in ("", ".tie_site"):
        by_load = [claims[f"crossover.{c}{reading}"]["ours"] for c in list(CONTEXTS)[1:]]
        assert by_load == sorted(by_load, reverse=True), reading
        assert by_load[0] > 2000
        assert 100 < by_load[-1] < 250
    assert not claims["crossover.shared"]["holds"]


def test_filling_pilots_gain_about_half_over_push_only_under_heavy_local_load(
    dirac: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    """Sections 8-9's "près de 50 %" over push holds at loads 1.2 and 1.38, not at 1.0 nor
    dedicated; the 10 % of reservation over static agents holds for filling pilots at load
    1.0 only, never for simple pilots (one pilot per job queues where the agent's job
    would)."""
    _, claims = dirac
    holds = {c: claims[f"response_gain_filling_vs_push.{c}"]["holds"] for c in CONTEXTS}
    assert holds == {"dedicated": False, "shared": True, "shared_130s": True, "shared_289s": False}
    filling = {c: claims[f"response_gain_filling_vs_static.{c}"]["holds"] for c in CONTEXTS}
    assert filling == {
        "dedicated": False,
        "shared": False,
        "shared_130s": False,
        "shared_289s": True,
    }
    for context in CONTEXTS:
        assert not claims[f"response_gain_simple_vs_static.{context}"]["holds"], context


def test_no_probe_rule_gives_both_the_papers_requests_and_wasted_pilots(
    dirac: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    """Dedicated: the 2005 probe wastes about the paper's 299 pilots but its agents probe
    more than static agents ask; later DIRAC's probe asks less (as 699 < 872) and wastes a
    tenth. Counting the pilots' pulls, pilots always ask more than static agents. At load
    1.0 the main reading gives the paper's ratio of requests and a third fewer wasted
    pilots."""
    data, claims = dirac
    assert claims["wasted_pilots.dedicated"]["holds"]
    assert abs(claims["wasted_pilots.dedicated"]["ours"] - 299) < 50
    assert not claims["fewer_requests_probes.dedicated"]["holds"]
    assert claims["fewer_requests_probes.dedicated.unclaimed"]["holds"]
    assert not claims["wasted_pilots.dedicated.unclaimed"]["holds"]
    assert claims["matcher_requests_static.dedicated"]["holds"]
    for name, claim in claims.items():
        if name.startswith("fewer_requests_all"):
            assert not claim["holds"], name
    ratio = claims["fewer_requests_probes.shared_289s"]["ours"]
    assert ratio == pytest.approx(699 / 872, abs=0.1)
    assert claims["wasted_pilots.shared_289s"]["holds"]
    filling = data["dedicated"]["strategies"]["pilot_filling"]
    assert filling["matcher_requests"] >= 500 + filling["wasted_pilots"]
