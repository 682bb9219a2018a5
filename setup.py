"""Build of the optional C extension; all other metadata lives in pyproject.toml.

``optional=True``: without a working C compiler the install still succeeds and
schedlab.platform falls back to the pure-Python profile, schedlab.workload.swf to
``numpy.loadtxt`` for the job lines (same values, parsing about 10x slower), and
schedlab.engine.queue to its `heapq` twin (same order of events) and the kernel to its loop
in Python (`Kernel._loop`: the same results).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "schedlab.platform._cprofile",
            ["src/schedlab/platform/_cprofile.c"],
            optional=True,
            extra_compile_args=["-O2"],
        ),
        Extension(
            "schedlab.engine._cevents",
            ["src/schedlab/engine/_cevents.c"],
            depends=["src/schedlab/engine/_cevents.h"],
            optional=True,
            extra_compile_args=["-O2"],
        ),
        Extension(
            "schedlab.engine._ckernel",
            [
                "src/schedlab/engine/_ckernel.c",
                "src/schedlab/engine/_ckernel_jobs.c",
                "src/schedlab/engine/_ckernel_state.c",
            ],
            depends=[
                "src/schedlab/engine/_ckernel_jobs.h",
                "src/schedlab/engine/_ckernel_state.h",
                "src/schedlab/engine/_cevents.h",
            ],
            optional=True,
            # (no fused multiply-adds: the same bits as the Python twin's arithmetic; the
            # names its two files share stay inside the module)
            extra_compile_args=["-O2", "-ffp-contract=off", "-fvisibility=hidden"],
        ),
        Extension(
            "schedlab.workload._cswf",
            ["src/schedlab/workload/_cswf.c"],
            optional=True,
            extra_compile_args=["-O2"],
        ),
    ]
)
