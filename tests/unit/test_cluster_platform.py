"""Cluster files: a single cluster described by node types (issue 24, item 1).

The shipped example parses to the machine its comments describe; ``ClusterSpec.single_core``
is today's processor model; memory sizes read the same everywhere (`parse_memory_mib`); every
bound of the file format is enforced with one line that starts with the file's name and
names the key path (the issue-22 standard of grid platform files); and mutated example files
give either such an error or a cluster with finite totals, never a traceback.
"""

from __future__ import annotations

import math
import pickle
import re
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from schedlab.cli import app
from schedlab.errors import ConfigError
from schedlab.examples_files import example_text
from schedlab.platform.cluster import (
    MAX_NODE_TYPES,
    MAX_TOTAL_CORES,
    NODE_KEYS,
    TOP_LEVEL_KEYS,
    ClusterSpec,
    GresCounts,
    NodeType,
    parse_cluster,
    read_cluster,
)
from schedlab.platform.files import PlatformFileError
from schedlab.validators import MAX_MEMORY_MIB, parse_memory_mib

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = example_text("cluster-gpu")
GIB = 1024.0
TIB = 1024.0**2

# one node type, its table last so that a case can append node keys
BASE = """\
name = "small"
[[nodes]]
name = "cpu"
count = 4
cores = 8
memory = "16G"
"""


def _write(folder: Path, text: str, name: str = "cluster.toml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def _refused(path: Path, key: str) -> str:
    """The one-line message of reading ``path``: it starts with the file and names ``key``."""
    with pytest.raises(PlatformFileError) as caught:
        read_cluster(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: "), message
    assert key in message, (key, message)
    assert "\n" not in message and message.isprintable(), message
    return message


# --- the example ----------------------------------------------------------------------------


def test_the_example_is_the_machine_its_comments_describe() -> None:
    """400 CPU nodes, 40 GPU nodes of 8 GPUs, 4 large-memory nodes: 54,272 cores, 320 GPUs,
    256 TiB, in file order."""
    cluster = read_cluster(REPO / "examples" / "cluster-gpu.toml")
    assert cluster.name == "cluster-gpu" and cluster.placement == "first_fit"
    assert [(t.name, t.count, t.cores, t.gpus) for t in cluster.node_types] == [
        ("cpu", 400, 128, 0),
        ("gpu", 40, 64, 8),
        ("fat", 4, 128, 0),
    ]
    assert [t.memory_mib for t in cluster.node_types] == [512 * GIB, 1 * TIB, 4 * TIB]
    assert cluster.nodes == 444 and cluster.cores == 54_272 and cluster.gpus == 320
    assert cluster.memory_mib == 256 * TIB
    assert cluster.gres == {"nvme": 8} and cluster.node_types[2].gres == {"nvme": 2}
    assert cluster.first_node == (0, 400, 440)
    assert not cluster.is_processor_model
    for figure in ("54,272 cores", "320 GPUs", "256 TiB"):
        assert figure in EXAMPLE


def test_schedlab_example_prints_the_cluster_file() -> None:
    """`schedlab example cluster-gpu` prints the file the repository links to, and the
    listing names it."""
    result = CliRunner().invoke(app, ["example", "cluster-gpu"])
    assert result.exit_code == 0, result.output
    assert result.stdout == (REPO / "examples" / "cluster-gpu.toml").read_text("utf-8")
    assert (REPO / "examples" / "cluster-gpu.toml").is_symlink()
    listing = CliRunner().invoke(app, ["example"], env={"COLUMNS": "120"})
    assert "cluster-gpu" in listing.stdout


def test_a_copy_of_the_example_reads_the_same(tmp_path: Path) -> None:
    """What a user saves (`schedlab example cluster-gpu > cluster.toml`) is the same
    cluster, named by its own ``name`` key."""
    copy = read_cluster(_write(tmp_path, EXAMPLE))
    assert copy == read_cluster(REPO / "examples" / "cluster-gpu.toml")
    assert copy.source == str(tmp_path / "cluster.toml")


# --- today's processor model ----------------------------------------------------------------


@pytest.mark.parametrize("procs", [1, 128, 43_200, 2**31 - 1])
def test_single_core_is_todays_processor_count(procs: int) -> None:
    """``--procs P``: P nodes of one core, memory unconstrained, no GPUs; a processor-only
    policy sees ``cores`` = P processors."""
    cluster = ClusterSpec.single_core(procs)
    assert cluster.cores == cluster.nodes == procs
    assert cluster.gpus == 0 and cluster.memory_mib == math.inf and not cluster.gres
    assert cluster.is_processor_model and cluster.placement == "first_fit"
    assert cluster == ClusterSpec("single-core", (NodeType("proc", procs, 1),))


@pytest.mark.parametrize("procs", [0, -1, 2**31, 1.0, True, "128"])
def test_single_core_refuses_what_is_not_a_processor_count(procs: object) -> None:
    with pytest.raises(ConfigError, match="procs"):
        ClusterSpec.single_core(procs)  # type: ignore[arg-type]


def test_any_constrained_resource_leaves_the_processor_model() -> None:
    """Memory, GPUs, a generic resource, two cores or another power each make a node model."""
    for node in (
        NodeType("n", 4, 1, 1024.0),
        NodeType("n", 4, 1, gpus=1),
        NodeType("n", 4, 1, gres={"nvme": 1}),
        NodeType("n", 4, 2),
        NodeType("n", 4, 1, power=2.0),
    ):
        assert not ClusterSpec("c", (node,)).is_processor_model, node
    assert ClusterSpec("c", (NodeType("n", 4, 1, gres={"nvme": 0}),)).is_processor_model


# --- memory sizes ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "mib"),
    [
        ("256G", 256 * GIB),
        ("256g", 256 * GIB),
        ("256GB", 256 * GIB),
        ("256GiB", 256 * GIB),
        ("256gib", 256 * GIB),
        ("512M", 512.0),
        ("1.5T", 1.5 * TIB),
        ("2048K", 2.0),
        ("1048576b", 1.0),
        (" 64 G ", 64 * GIB),
        (".5G", 512.0),
        ("4096", 4096.0),
        (4096, 4096.0),
        (0.5, 0.5),
        ("1048576T", MAX_MEMORY_MIB),
    ],
)
def test_memory_sizes_are_1024_based_and_mib_without_a_unit(text: object, mib: float) -> None:
    """K, M, G, T count powers of 1024 as Slurm and PBS do, in any case, with B or iB after;
    a bare number is MiB (Slurm's default unit)."""
    assert parse_memory_mib(text, "memory") == mib


@pytest.mark.parametrize(
    "value",
    ["0", "0G", "-1G", "1P", "G", "1e3", "inf", "1iB", "2GiBB", "1,5G", "", "1048577T", "9" * 101]
    + [0, -1.0, math.inf, math.nan, 2**41, 10**400, True, None, [1], {"G": 1}],
)
def test_memory_sizes_outside_the_bounds_name_the_key(value: object) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_memory_mib(value, "nodes[2].memory")
    assert "nodes[2].memory" in str(caught.value) and "256G" in str(caught.value)


def test_zero_memory_is_allowed_where_asked() -> None:
    """An importer may read a request of 0 (positive=False); a node never has none."""
    assert parse_memory_mib("0", "ReqMem", positive=False) == 0.0
    with pytest.raises(ConfigError):
        parse_memory_mib("-1M", "ReqMem", positive=False)


# --- every bound and mistake of the file ----------------------------------------------------

CASES = [
    # (what is appended to BASE or replaces a line, key path named)
    ("count = 0", "nodes[0].count"),
    ("count = 1_000_001", "nodes[0].count"),
    ("count = 2.0", "nodes[0].count"),
    ("count = true", "nodes[0].count"),
    ("cores = 0", "nodes[0].cores"),
    ("cores = 100_001", "nodes[0].cores"),
    ("cores = 1.5", "nodes[0].cores"),
    ('cores = "8"', "nodes[0].cores"),
    ('memory = "0"', "nodes[0].memory"),
    ('memory = "-1G"', "nodes[0].memory"),
    ('memory = "1048577T"', "nodes[0].memory"),
    ('memory = "lots"', "nodes[0].memory"),
    ("memory = inf", "nodes[0].memory"),
    ("memory = nan", "nodes[0].memory"),
    ("memory = 0", "nodes[0].memory"),
    ("memory = true", "nodes[0].memory"),
    ("gpus = -1", "nodes[0].gpus"),
    ("gpus = 1025", "nodes[0].gpus"),
    ('gpus = "8"', "nodes[0].gpus"),
    ("gpus = 2.0", "nodes[0].gpus"),
    ("power = 0", "nodes[0].power"),
    ("power = 1e10", "nodes[0].power"),
    ("power = nan", "nodes[0].power"),
    ('power = "fast"', "nodes[0].power"),
    ("gres = 3", "nodes[0].gres"),
    ("gres = { nvme = -1 }", "nodes[0].gres.nvme"),
    ("gres = { nvme = 1_000_001 }", "nodes[0].gres.nvme"),
    ("gres = { nvme = 1.5 }", "nodes[0].gres.nvme"),
    ("gres = { gpu = 4 }", "nodes[0].gres.gpu"),
    ("gres = { GPUs = 4 }", "nodes[0].gres.GPUs"),
    ('gres = { "local disk" = 1 }', "nodes[0].gres.local disk"),
    ('name = "c p u"', "nodes[0].name"),
    ('name = ""', "nodes[0].name"),
    ('name = "-cpu"', "nodes[0].name"),
    ('name = "cpu[0]"', "nodes[0].name"),
    (f'name = "{"a" * 65}"', "nodes[0].name"),
    ("name = 5", "nodes[0].name"),
    ("gpu = 4", "nodes[0].gpu"),
    ("mem = 4", "nodes[0].mem"),
]


@pytest.mark.parametrize(("line", "key"), CASES)
def test_a_node_key_out_of_bounds_names_the_file_and_the_key(
    tmp_path: Path, line: str, key: str
) -> None:
    key_name = line.split(" = ")[0]
    lines = [x for x in BASE.splitlines() if not x.startswith(f"{key_name} = ")]
    _refused(_write(tmp_path, "\n".join([*lines, line]) + "\n"), key)


@pytest.mark.parametrize("missing", ["name", "count", "cores", "memory"])
def test_a_missing_node_key_is_named(tmp_path: Path, missing: str) -> None:
    text = "\n".join(x for x in BASE.splitlines() if not x.startswith(f"{missing} = "))
    message = _refused(_write(tmp_path, text + "\n"), f"missing nodes[0].{missing}")
    if missing == "memory":
        assert "256G" in message


def test_unknown_keys_are_refused_with_the_allowed_ones(tmp_path: Path) -> None:
    message = _refused(_write(tmp_path, BASE + "gpu = 8\n"), "nodes[0].gpu")
    assert ", ".join(NODE_KEYS) in message
    message = _refused(_write(tmp_path, 'placment = "best_fit"\n' + BASE), "placment")
    assert ", ".join(TOP_LEVEL_KEYS) in message


def test_a_key_of_control_characters_is_shown_escaped(tmp_path: Path) -> None:
    """A quoted key may hold any character: the message never steers the terminal."""
    message = _refused(_write(tmp_path, '"\\u001b[31mred" = 1\n' + BASE), "red")
    assert "\x1b" not in message and "\\x1b" in message


@pytest.mark.parametrize(
    ("top", "key"),
    [
        ('placement = "random"', "placement"),
        ("placement = 1", "placement"),
        ('name = ""', "name"),
        ('name = "\\u0007"', "name"),
        ("name = 3", "name"),
        ("description = 5", "description"),
        ("max_nodes = 0", "max_nodes"),
        ("max_nodes = 2147483648", "max_nodes"),
        ("max_nodes = 1.0e6", "max_nodes"),
    ],
)
def test_a_top_level_key_out_of_bounds_is_named(tmp_path: Path, top: str, key: str) -> None:
    text = "\n".join(x for x in BASE.splitlines() if not x.startswith("name = ")) + "\n"
    message = _refused(_write(tmp_path, f"{top}\n{text}"), key)
    if key == "placement":
        assert "first_fit, best_fit" in message


def test_duplicate_node_type_names_name_the_first(tmp_path: Path) -> None:
    second = BASE.split("[[nodes]]")[1]
    message = _refused(_write(tmp_path, BASE + "[[nodes]]" + second), "nodes[1].name")
    assert "nodes[0]" in message


def test_a_million_nodes_at_most_unless_the_file_raises_the_ceiling(tmp_path: Path) -> None:
    """Two types of 600,000 nodes: refused at the second, with how to raise the ceiling;
    ``max_nodes = 2000000`` lets them in."""
    text = "".join(
        f'[[nodes]]\nname = "t{i}"\ncount = 600_000\ncores = 1\nmemory = "1G"\n' for i in (0, 1)
    )
    message = _refused(_write(tmp_path, text), "nodes[1].count")
    assert "max_nodes = N" in message and "2,147,483,647" in message
    cluster = read_cluster(_write(tmp_path, "max_nodes = 2_000_000\n" + text, "raised.toml"))
    assert cluster.nodes == 1_200_000 and cluster.name == "raised"
    # a single type above the ceiling is named at its count
    _refused(
        _write(tmp_path, "max_nodes = 10\n" + BASE.replace("count = 4", "count = 11")),
        "nodes[0].count",
    )


def test_cores_in_all_stay_a_processor_count(tmp_path: Path) -> None:
    """30,000 nodes of 100,000 cores are 3e9 processors, more than a pool holds."""
    text = BASE.replace("count = 4", "count = 30_000").replace("cores = 8", "cores = 100_000")
    message = _refused(_write(tmp_path, text), "nodes[0].cores")
    assert f"{MAX_TOTAL_CORES:,}" in message


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('name = "x"\n', "missing nodes"),
        ("nodes = []\n", "nodes"),
        ("nodes = [1, 2]\n", "nodes"),
        ('[nodes]\nname = "cpu"\n', "nodes"),
        ("[nodes.gres]\nnvme = 1\n", "nodes"),
    ],
)
def test_nodes_must_be_an_array_of_tables(tmp_path: Path, text: str, key: str) -> None:
    _refused(_write(tmp_path, text), key)


def test_too_many_node_types_are_refused_before_any_is_read() -> None:
    data: dict[str, object] = {"nodes": [{}] * (MAX_NODE_TYPES + 1)}
    with pytest.raises(PlatformFileError, match=r"^big\.toml: .*nodes.*equal nodes"):
        parse_cluster(data, "big.toml")


def test_syntax_errors_and_unreadable_files_start_with_the_file(tmp_path: Path) -> None:
    message = _refused(_write(tmp_path, 'name = "x"\n[[nodes]\n'), "line 2")
    assert "valid TOML" in message and message.count(str(tmp_path / "cluster.toml")) == 1
    _refused(tmp_path / "absent.toml", "cluster file")
    (tmp_path / "folder.toml").mkdir()
    _refused(tmp_path / "folder.toml", "cluster file")
    (tmp_path / "binary.toml").write_bytes(b"\xff\xfe\x00")
    _refused(tmp_path / "binary.toml", "cluster file")


def test_the_name_defaults_to_the_file_and_best_fit_is_kept(tmp_path: Path) -> None:
    text = 'placement = "best_fit"\n' + "\n".join(BASE.splitlines()[1:]) + "\n"
    cluster = read_cluster(_write(tmp_path, text, "site-a.toml"))
    assert cluster.name == "site-a" and cluster.placement == "best_fit"
    assert cluster.node_types == (NodeType("cpu", 4, 8, 16 * GIB),)


# --- values built in code -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "key"),
    [
        ({"count": 0}, "count of node type n"),
        ({"count": 2**31}, "count of node type n"),
        ({"cores": 100_001}, "cores of node type n"),
        ({"memory_mib": 0.0}, "memory_mib of node type n"),
        ({"memory_mib": "256G"}, "memory_mib of node type n"),
        ({"memory_mib": math.nan}, "memory_mib of node type n"),
        ({"gpus": 1025}, "gpus of node type n"),
        ({"gres": {"gpu": 1}}, "gres of node type n.gpu"),
        ({"power": 0.0}, "power of node type n"),
        ({"name": "a b"}, "name of a node type"),
    ],
)
def test_node_types_built_in_code_are_as_bounded(kwargs: dict[str, object], key: str) -> None:
    values: dict[str, object] = {"name": "n", "count": 2, "cores": 4} | kwargs
    with pytest.raises(ConfigError) as caught:
        NodeType(**values)  # type: ignore[arg-type]
    assert key in str(caught.value)


def test_clusters_built_in_code_are_checked() -> None:
    node = NodeType("n", 2, 4)
    cases: list[tuple[dict[str, object], str]] = [
        ({"node_types": ()}, "node types"),
        ({"node_types": (node, node)}, "name of a node type"),
        ({"node_types": ("n",)}, "node types"),
        ({"placement": "random"}, "placement"),
        ({"name": ""}, "cluster name"),
        ({"node_types": (NodeType("a", 30_000, 100_000),)}, "node types"),
    ]
    for bad, key in cases:
        values: dict[str, object] = {"name": "c", "node_types": (node,), **bad}
        with pytest.raises(ConfigError, match=key):
            ClusterSpec(**values)  # type: ignore[arg-type]


def test_clusters_are_values() -> None:
    """Equal, hashable and picklable (sweep workers get them); the description and the file
    they came from are not part of the value; numpy ints and mappings are normalized."""
    import numpy as np

    a = ClusterSpec("c", (NodeType("n", np.int64(2), 4, gres={"x": 1, "a": 2}),))
    b = ClusterSpec("c", [NodeType("n", 2, 4, gres=GresCounts([("a", 2), ("x", 1)]))])  # type: ignore[arg-type]
    c = ClusterSpec("c", (NodeType("n", 2, 4, gres={"a": 2, "x": 1}),), description="d", source="f")
    assert a == b == c and hash(a) == hash(b) == hash(c)
    assert pickle.loads(pickle.dumps(c)) == c and type(a.node_types[0].count) is int
    assert list(a.node_types[0].gres) == ["a", "x"] and a.node_types[0].gres == {"a": 2, "x": 1}
    assert ClusterSpec("c", (node := NodeType("n", 2, 4),)) != ClusterSpec("c", (node,), "best_fit")


# --- fuzz -----------------------------------------------------------------------------------

_HOSTILE_LITERALS = [
    "0", "-1", "1", "1025", "100_001", "2147483648", "1e400", "inf", "-inf", "nan", "1.5",
    "true", "[]", "{}", "[1, 2]", "{ nvme = 1 }", "{ gpu = 1 }", '"256G"', '"0"', '"1.5T"',
    '"1048577T"', '"first_fit"', '"best_fit"', '"cpu"', '"gpu"', '""', '"a b"', "1979-05-27",
]  # fmt: skip
_LITERAL = st.one_of(
    st.sampled_from(_HOSTILE_LITERALS),
    st.integers(-(2**70), 2**70).map(str),
    st.floats().map(lambda x: repr(x).replace("e+", "e")),
    st.text(max_size=12).map(lambda s: '"' + s.encode("unicode_escape").decode("ascii") + '"'),
)
_KEYS = sorted({*TOP_LEVEL_KEYS, *NODE_KEYS, "gpu", "mem", "nvme"})
_EXAMPLE_LINES = EXAMPLE.splitlines()


@st.composite
def _mutated_example(draw: st.DrawFn) -> str:
    """The example with 1 to 4 lines replaced, removed, repeated or added."""
    lines = list(_EXAMPLE_LINES)
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(lines)))
        op = draw(st.sampled_from(["value", "delete", "repeat", "insert"]))
        if op == "insert" or i == len(lines):
            lines.insert(i, f"{draw(st.sampled_from(_KEYS))} = {draw(_LITERAL)}")
        elif op == "delete":
            del lines[i]
        elif op == "repeat":
            lines.insert(i, lines[i])
        elif " = " in lines[i]:
            lines[i] = f"{lines[i].split(' = ')[0]} = {draw(_LITERAL)}"
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def fuzz_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


def _check_spec(cluster: ClusterSpec) -> None:
    assert 1 <= cluster.nodes <= 1_000_000 and 1 <= cluster.cores <= MAX_TOTAL_CORES
    assert cluster.gpus >= 0 and math.isfinite(cluster.memory_mib) and cluster.memory_mib > 0
    assert all(math.isfinite(v) for v in cluster.gres.values())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_mutated_example())
def test_mutated_example_files_give_an_error_line_or_a_bounded_cluster(
    fuzz_folder: Path, text: str
) -> None:
    path = _write(fuzz_folder, text)
    try:
        cluster = read_cluster(path)
    except PlatformFileError as exc:
        message = str(exc)
        assert message.startswith(f"{path}: ") and "\n" not in message, message
        assert message.isprintable(), message
        return
    _check_spec(cluster)


_VALUE = st.one_of(
    st.none(),  # the key removed
    st.integers(-(2**80), 2**80),
    st.floats(),
    st.booleans(),
    st.text(max_size=8),
    st.sampled_from(["256G", "1.5T", "0", "first_fit", "best_fit", "gpu"]),
    st.lists(st.integers(0, 3), max_size=3),
    st.dictionaries(st.sampled_from(["nvme", "gpu", "a b", ""]), st.integers(-2, 2**21)),
)


@settings(max_examples=300, deadline=None)
@given(
    changes=st.lists(
        st.tuples(st.integers(-1, 3), st.sampled_from(_KEYS), _VALUE), min_size=1, max_size=4
    )
)
def test_mutated_example_tables_give_an_error_or_a_bounded_cluster(
    changes: list[tuple[int, str, object]],
) -> None:
    """Values TOML cannot write too (None as a removed key, ints beyond 64 bits)."""
    data = tomllib.loads(EXAMPLE)
    for index, key, value in changes:
        nodes = data.get("nodes")
        table = data
        if index >= 0 and isinstance(nodes, list) and nodes:
            table = nodes[index % len(nodes)]
            if not isinstance(table, dict):
                continue
        if value is None:
            table.pop(key, None)
        else:
            table[key] = value
    try:
        cluster = parse_cluster(data, "fuzz.toml")
    except PlatformFileError as exc:
        assert re.match(r"fuzz\.toml: ", str(exc)) and "\n" not in str(exc), str(exc)
        return
    _check_spec(cluster)


@pytest.mark.parametrize("memory", ['"100b"', '"512K"', "0.5"])
def test_a_node_holds_at_least_a_mib(tmp_path: Path, memory: str) -> None:
    path = tmp_path / "tiny.toml"
    path.write_text(f'[[nodes]]\nname = "n"\ncount = 1\ncores = 1\nmemory = {memory}\n')
    with pytest.raises(ConfigError, match=r"tiny.toml.*nodes\[0\]\.memory.*at least 1 MiB"):
        read_cluster(path)
