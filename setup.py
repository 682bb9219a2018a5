"""Build of the optional C extension; all other metadata lives in pyproject.toml.

``optional=True``: without a working C compiler the install still succeeds and
schedlab.platform falls back to the pure-Python profile.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "schedlab.platform._cprofile",
            ["src/schedlab/platform/_cprofile.c"],
            optional=True,
            extra_compile_args=["-O2"],
        )
    ]
)
