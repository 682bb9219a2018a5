"""What a job asks of the nodes, read from Slurm, PBS and CSV logs (issue 24, item 2;
docs/importers.md "What a job asks of the nodes").

Hand-written records with known nodes, cores per node, memory per node (MiB), GPUs per node
and exclusivity: typed GPUs added up, per-CPU and total memory shared out, PBS chunks that
differ, a job that ran wider than its minimum node count. Every new field is bounded as
issue 22 demands: one `WorkloadError` naming the file, line and field. The attributes follow
their jobs through the transforms, and `workload convert` says what SWF cannot carry.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from schedlab.cli import app
from schedlab.errors import WorkloadError
from schedlab.workload import transforms
from schedlab.workload.importers import read_trace
from schedlab.workload.importers.csvlog import _mem_mib
from schedlab.workload.importers.slurm import parse_tres
from schedlab.workload.job import MAX_PROCS, Workload

NAN = math.nan
NAMES = ("req_nodes", "req_cores_per_node", "req_mem_per_node", "req_gpus_per_node", "exclusive")
GiB = 1024.0


def requests(w: Workload) -> dict[int, tuple[float, ...]]:
    """Job id -> (nodes, cores per node, MiB per node, GPUs per node, exclusive)."""
    return {
        int(job): tuple(float(w.attributes[name][i]) for name in NAMES)
        for i, job in enumerate(w.job_id)
    }


def same(got: tuple[float, ...], want: tuple[float, ...]) -> bool:
    return len(got) == len(want) and all(
        (math.isnan(a) and math.isnan(b)) or a == b for a, b in zip(got, want, strict=True)
    )


def refused(source: str, *, line: int, field: str, words: str = "") -> str:
    with pytest.raises(WorkloadError) as info:
        read_trace(source)
    err = info.value
    message = str(err)
    assert err.line == line, message
    assert err.field is not None and field in err.field, message
    assert words in message, message
    assert "\n" not in message and len(message) < 700, message[:1000]
    return message


# -- Slurm -----------------------------------------------------------------------------------

SACCT_HEADER = (
    "JobID|JobIDRaw|Submit|Start|End|Elapsed|AllocCPUS|ReqCPUS|ReqMem|NNodes|ReqNodes|"
    "ReqTRES|AllocTRES|State"
)
TIMES = "2024-03-01T00:00:00|2024-03-01T00:00:10|2024-03-01T01:00:10|01:00:00"


def sacct_row(
    job: int, alloc: int, req: int, mem: str, nnodes: str, reqnodes: str, *tres: str
) -> str:
    """A finished sacct record; ``tres``: ReqTRES, then AllocTRES (each may be left out)."""
    req_tres, alloc_tres = (tres + ("", ""))[:2]
    return (
        f"{job}|{job}|{TIMES}|{alloc}|{req}|{mem}|{nnodes}|{reqnodes}|{req_tres}|{alloc_tres}|"
        "COMPLETED"
    )


def sacct(tmp_path: Path, *rows: str, header: str = SACCT_HEADER) -> str:
    path = tmp_path / "sacct.txt"
    path.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    return f"slurm:{path}"


def test_sacct_tres_gpus_memory_nodes(tmp_path: Path) -> None:
    """The issue's line (billing=8,cpu=8,gres/gpu=4,mem=64G,node=1); typed GPUs added up
    over two nodes; untyped and typed together counted once; a request preferred to the
    allocation; a TRES list without a GPU asks for none."""
    src = sacct(
        tmp_path,
        sacct_row(1, 8, 8, "64G", "1", "1", "billing=8,cpu=8,gres/gpu=4,mem=64G,node=1"),
        sacct_row(2, 64, 64, "", "2", "2", "cpu=64,gres/gpu:a100=4,gres/gpu:v100=2,node=2"),
        sacct_row(3, 16, 16, "", "1", "1", "cpu=16,gres/gpu=4,gres/gpu:a100=4,node=1"),
        sacct_row(4, 8, 8, "", "1", "1", "cpu=8,gres/gpu=2,mem=1.5T,node=1", "gres/gpu=4"),
        sacct_row(5, 4, 4, "", "1", "1", "cpu=4,mem=4000M,node=1"),
        sacct_row(6, 4, 4, "", "1", "", "", "cpu=4,mem=8G,node=1"),
    )
    got = requests(read_trace(src))
    assert same(got[1], (1, 8, 64 * GiB, 4, NAN))
    assert same(got[2], (2, 32, NAN, 3, NAN))  # 4 a100 + 2 v100 over 2 nodes
    assert same(got[3], (1, 16, NAN, 4, NAN))  # gres/gpu counts every GPU: not 8
    assert same(got[4], (1, 8, 1.5 * 1024 * GiB, 2, NAN))  # requested, not allocated
    assert same(got[5], (1, 4, 4000, 0, NAN))
    assert same(got[6], (1, 4, 8 * GiB, 0, NAN))  # allocation fills what the request lacks


def test_sacct_reqmem_per_cpu_per_node_and_total(tmp_path: Path) -> None:
    """ReqMem 4000Mc: per CPU x cores per node; 16Gn: per node; 32G (no letter: the job's
    total, Slurm 21.08+) over the nodes; 0 (--mem=0): unknown. CPUs not divisible by the
    nodes round up (10 over 3: 4)."""
    src = sacct(
        tmp_path,
        sacct_row(1, 8, 8, "4000Mc", "2", "2"),
        sacct_row(2, 8, 8, "16Gn", "2", "2"),
        sacct_row(3, 8, 8, "32G", "2", "2"),
        sacct_row(4, 8, 8, "0n", "1", "1"),
        sacct_row(5, 10, 10, "1000Mc", "3", "3"),
    )
    got = requests(read_trace(src))
    assert same(got[1], (2, 4, 16000, NAN, NAN))
    assert same(got[2], (2, 4, 16 * GiB, NAN, NAN))
    assert same(got[3], (2, 4, 16 * GiB, NAN, NAN))
    assert same(got[4], (1, 8, NAN, NAN, NAN))
    assert same(got[5], (3, 4, 4000, NAN, NAN))


def test_sacct_job_that_ran_wider_than_its_minimum_keeps_its_allocation(tmp_path: Path) -> None:
    """ReqNodes is a minimum: a job asking 1 node for 64 CPUs that ran on 2 takes the shape
    it ran with (2 nodes of 32 CPUs, AllocTRES memory and GPUs)."""
    src = sacct(
        tmp_path,
        sacct_row(
            1, 64, 64, "", "2", "1", "cpu=64,mem=8G,node=1", "cpu=64,gres/gpu=2,mem=16G,node=2"
        ),
    )
    assert same(requests(read_trace(src))[1], (2, 32, 8 * GiB, 1, NAN))


def test_sacct_heterogeneous_job_adds_nodes_keeps_largest_per_node(tmp_path: Path) -> None:
    src = sacct(
        tmp_path,
        sacct_row(1, 2, 2, "", "1", "1", "cpu=2,mem=2G,node=1").replace("1|1|", "7+0|7|", 1),
        sacct_row(2, 24, 24, "", "2", "2", "cpu=24,gres/gpu=4,mem=64G,node=2").replace(
            "2|2|", "7+1|8|", 1
        ),
    )
    assert same(requests(read_trace(src))[7], (3, 12, 32 * GiB, 2, NAN))


def test_a_log_without_resources_has_no_attributes(tmp_path: Path) -> None:
    """Nothing known of any job's resources: no attributes, as an SWF trace."""
    header = "JobID|Submit|Start|Elapsed|AllocCPUS|State"
    src = sacct(tmp_path, f"1|{TIMES.rsplit('|', 2)[0]}|01:00:00|4|COMPLETED", header=header)
    assert read_trace(src).attributes == {}


def test_parse_tres() -> None:
    tres = parse_tres("billing=8,cpu=8,gres/gpu=4,mem=64G,node=1,energy=12,license/x=2")
    assert (tres.nodes, tres.cpus, tres.mem, tres.gpus) == (1, 8, 64 * GiB, 4)
    assert parse_tres("cpu=1,GRES/GPU:A100=3,gres/gpu:h100=1").gpus == 4
    assert parse_tres("cpu=1,mem=65536").mem == 65536  # no unit: MB
    assert parse_tres("cpu=1,gres/gpumem=40G").gpus == 0  # GPU memory is not a GPU


@pytest.mark.parametrize(
    ("cell", "words"),
    [
        ("cpu=8,mem", "TRES such as"),
        ("cpu=8,,node=1", "TRES such as"),
        ("cpu=8,gres/gpu=1e400", "TRES such as"),
        ("cpu=8,gres/gpu=٣", "ASCII digits"),
        ("cpu=8,gres/gpu=-1", "TRES such as"),
        ("cpu=8,gres/gpu=4.5", "TRES such as"),
        ("cpu=8,node=" + "9" * 400, "a whole number from 0 to"),
        ("cpu=8,gres/gpu=2147483648", "a whole number from 0 to"),
        (
            "cpu=8,gres/gpu:a=2147483647,gres/gpu:b=2147483647",
            f"at most {MAX_PROCS} GPUs in all",
        ),
        ("cpu=8,mem=" + "9" * 30 + "T", "at most 2**53 KB"),
        ("cpu=8,mem=64Q", "TRES such as"),
        ("cpu=8,mem=1G,mem=2G", "each TRES once"),
    ],
)
def test_sacct_bad_tres_is_one_error_naming_line_and_column(
    tmp_path: Path, cell: str, words: str
) -> None:
    src = sacct(
        tmp_path,
        sacct_row(1, 8, 8, "", "1", "1", "cpu=8,node=1"),
        sacct_row(2, 8, 8, "", "1", "1", "", cell),
    )
    refused(src, line=3, field="AllocTRES", words=words)


def test_sacct_bad_request_values(tmp_path: Path) -> None:
    """ReqNodes out of range or in another script's digits; a per-CPU ReqMem that, times
    the cores per node, passes the memory bound."""
    src = sacct(tmp_path, sacct_row(1, 8, 8, "", "1", "٣"))
    refused(src, line=2, field="ReqNodes", words="ASCII digits")
    src = sacct(tmp_path, sacct_row(1, 8, 8, "", "1", "2147483648"))
    refused(src, line=2, field="ReqNodes", words="a whole number from 0 to")
    huge = f"{2**43}Mc"  # 8 EiB per CPU (the bound) x 2 CPUs per node
    src = sacct(tmp_path, sacct_row(1, 2, 2, huge, "1", "1"))
    refused(src, line=2, field="ReqMem", words="per node")


# -- PBS -------------------------------------------------------------------------------------

PBS_END = (
    "03/01/2024 00:36:40;E;{id}.srv;user=carol queue=workq ctime=1709251500 start=1709251600 "
    "end=1709253400 resources_used.walltime=00:30:00 Exit_status=0 {resources}"
)


def pbs(tmp_path: Path, *resources: str) -> str:
    rows = [PBS_END.format(id=300 + i, resources=r) for i, r in enumerate(resources)]
    path = tmp_path / "acct"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return f"pbs:{path}"


def test_pbs_requests(tmp_path: Path) -> None:
    """select of the issue (2 x 32 cores, 4 GPUs, 256 GB; scatter:excl); chunks that differ
    (total nodes, largest per-node values); Torque nodes with ppn and gpus, total mem and
    place=pack; nodect with ncpus and a total ngpus; pmem times ppn; no place: unknown."""
    src = pbs(
        tmp_path,
        "Resource_List.select=2:ncpus=32:ngpus=4:mem=256gb Resource_List.place=scatter:excl",
        "Resource_List.select=1:ncpus=32:ngpus=4:mem=64gb+4:ncpus=8:mem=16gb "
        "Resource_List.place=free",
        "Resource_List.nodes=2:ppn=16:gpus=2 Resource_List.mem=64gb Resource_List.place=pack",
        "Resource_List.nodect=3 Resource_List.ncpus=10 Resource_List.ngpus=5 "
        "Resource_List.place=exclhost",
        "Resource_List.nodes=n1:ppn=4+n2:ppn=8 Resource_List.pmem=1gb",
        "Resource_List.select=1:ncpus=4 Resource_List.mem=8gb Resource_List.place=shared",
    )
    got = requests(read_trace(src))
    assert same(got[300], (2, 32, 256 * GiB, 4, 1))
    assert same(got[301], (5, 32, 64 * GiB, 4, 0))
    assert same(got[302], (2, 16, 32 * GiB, 2, 0))
    assert same(got[303], (3, 4, NAN, 2, 1))
    assert same(got[304], (2, 8, 8 * GiB, 0, NAN))
    assert same(got[305], (1, 4, 8 * GiB, 0, 0))


def test_pbs_totals_without_nodes_are_noted(tmp_path: Path) -> None:
    """ncpus, mem and ngpus without select, nodes or nodect: a plain processor request;
    the GPUs and memory it gives are counted in a note."""
    src = pbs(tmp_path, "Resource_List.ncpus=8 Resource_List.mem=8gb Resource_List.ngpus=2")
    notes: list[str] = []
    assert read_trace(src, on_note=notes.append).attributes == {}  # nothing per node known
    assert any("1 job gives GPUs and memory as a total without a node count" in n for n in notes)


@pytest.mark.parametrize(
    ("resources", "field", "words"),
    [
        ("Resource_List.select=2:ncpus=4:ngpus=٣", "select", "ASCII digits"),
        ("Resource_List.select=2:ncpus=4:ngpus=2147483648", "select", "GPUs per node"),
        ("Resource_List.select=2147483647:ncpus=1+1:ncpus=1", "select", "CPUs in all"),
        ("Resource_List.select=2147483647:ncpus=0+1:ncpus=0", "select", "nodes in all"),
        ("Resource_List.select=1:ncpus=4:mem=" + "9" * 30 + "gb", "select", "2**53 KB"),
        ("Resource_List.nodes=2:ppn=4:gpus=x", "nodes", "nodes such as"),
        ("Resource_List.nodect=2 Resource_List.ngpus=1e400", "ngpus", "a whole number"),
        ("Resource_List.nodes=1:ppn=4 Resource_List.pmem=" + f"{2**53}kb", "pmem", "per node"),
        (
            "Resource_List.select=1:ncpus=4 Resource_List.place=excl Resource_List.place=free",
            "place",
            "each key once",
        ),
    ],
)
def test_pbs_bad_resources_are_one_error(
    tmp_path: Path, resources: str, field: str, words: str
) -> None:
    src = pbs(tmp_path, "Resource_List.select=1:ncpus=1", resources)
    refused(src, line=2, field=field, words=words)


# -- CSV -------------------------------------------------------------------------------------


def csv_log(tmp_path: Path, header: str, *rows: str) -> Path:
    path = tmp_path / "jobs.csv"
    path.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    return path


def test_csv_resource_columns(tmp_path: Path) -> None:
    """gpus and mem are the job's totals over its nodes; per-node keys win; mem_per_core
    times the cores per node; cores per node from requested_procs (else procs) when not
    given; exclusive as a word; columns named by --columns or found by their names."""
    path = csv_log(
        tmp_path,
        "job_id,submit,run,procs,requested_procs,nodes,Cores,gpus,gpus_per_node,mem,"
        "mem_per_node,mem_per_cpu,exclusive",
        "1,0,10,64,,2,,8,,256G,,,yes",
        "2,1,10,64,48,2,,5,,,,,False",
        "3,2,10,8,,2,32,8,1,1000,2G,,1",
        "4,3,10,8,,2,,,,,,1.5GiB,NA",
        "5,4,10,8,,1,,0,,68719476736B,,,0",
    )
    got = requests(read_trace(f"csv:{path}?cores_per_node=Cores"))
    assert same(got[1], (2, 32, 128 * GiB, 4, 1))
    assert same(got[2], (2, 24, NAN, 3, 0))  # requested_procs 48 over 2; 5 GPUs: 3 at most
    assert same(got[3], (2, 32, 2 * GiB, 1, 1))  # per-node keys win over the totals
    assert same(got[4], (2, 4, 6 * GiB, NAN, NAN))
    assert same(got[5], (1, 8, 64 * GiB, 0, 0))


def test_csv_totals_without_nodes_are_noted(tmp_path: Path) -> None:
    path = csv_log(
        tmp_path, "submit,run,procs,gpus,gpus_per_node,mem", "0,10,4,2,,8G", "1,10,4,,0,"
    )
    notes: list[str] = []
    w = read_trace(f"csv:{path}", on_note=notes.append)
    got = requests(w)  # (ids 1, 2: new ids)
    assert same(got[1], (NAN, NAN, NAN, NAN, NAN)) and same(got[2], (NAN, NAN, NAN, 0, NAN))
    assert any("1 job gives GPUs and memory as a total" in n for n in notes)


@pytest.mark.parametrize(
    ("text", "mib"),
    [
        ("4000", 4000.0),
        ("64G", 65536.0),
        ("64GB", 65536.0),
        ("64 GiB", 65536.0),
        ("4000M", 4000.0),
        ("512k", 0.5),
        ("1.5T", 1.5 * 1024 * 1024),
        ("1073741824B", 1024.0),
        ("1e3", 1000.0),
        ("0", None),
        ("-1", None),
    ],
)
def test_csv_memory_units(text: str, mib: float | None) -> None:
    assert _mem_mib(text) == mib


@pytest.mark.parametrize(
    ("cell", "column", "words"),
    [
        ("nodes=4.5", "nodes", "a whole number"),
        ("nodes=2147483648", "nodes", "a whole number from 0 to"),
        ("gpus=1e400", "gpus", "a finite number"),
        ("gpus=٣", "gpus", "ASCII digits"),
        ("mem=1e400", "mem", "2**53 KB"),
        ("mem=" + "9" * 30 + "T", "mem", "2**53 KB"),
        ("mem=64Q", "mem", "a memory size"),
        ("mem=64iB", "mem", "a memory size"),
        ("exclusive=2", "exclusive", "1/0, true/false"),
        ("mem_per_core=4294967296G", "mem_per_core", "per node"),
    ],
)
def test_csv_bad_resources_are_one_error(
    tmp_path: Path, cell: str, column: str, words: str
) -> None:
    key, _, value = cell.partition("=")
    header = "submit,run,procs,nodes,gpus,mem,mem_per_core,exclusive"
    row = {"nodes": "2", "gpus": "", "mem": "", "mem_per_core": "", "exclusive": ""}
    row[key] = value
    values = ",".join(row[k] for k in ("nodes", "gpus", "mem", "mem_per_core", "exclusive"))
    path = csv_log(tmp_path, header, "0,10,4,2,,,,", f"1,10,4096,{values}")
    refused(f"csv:{path}", line=3, field=column, words=words)


# -- the attributes follow their jobs; SWF cannot carry them ---------------------------------


def test_attributes_survive_transforms(tmp_path: Path) -> None:
    rows = [
        sacct_row(i, 8 * i, 8 * i, "", str(i), str(i), f"cpu={8 * i},gres/gpu={i},node={i}")
        for i in range(1, 6)
    ]
    w = read_trace(sacct(tmp_path, *rows))
    want = requests(w)
    assert same(want[3], (3, 8, NAN, 1, NAN))
    for changed in (
        transforms.first_jobs(w, 3),
        transforms.scale_load(w, 2.0),
        transforms.time_window(w, 0.0, 1e9),
        transforms.clean_by_status(w, drop=(0,)),
        w.with_fields(w.fields.copy()),
        Workload.from_fields(w.fields, max_procs=100, attributes=w.attributes),
    ):
        got = requests(changed)
        assert got and all(same(got[job], want[job]) for job in got)


def test_convert_says_what_swf_cannot_carry(tmp_path: Path) -> None:
    src = sacct(
        tmp_path,
        sacct_row(1, 8, 8, "4000Mc", "1", "1", "cpu=8,gres/gpu=4,node=1"),
        sacct_row(2, 8, 8, "4000Mc", "1", "1", "cpu=8,node=1"),
    )
    out = tmp_path / "out.swf"
    result = CliRunner().invoke(app, ["workload", "convert", src, str(out)])
    assert result.exit_code == 0, (result.stdout, result.stderr)
    assert "SWF has no field for node counts (2 jobs)" in result.stderr
    assert "GPUs (1 job)" in result.stderr
    assert out.exists()
