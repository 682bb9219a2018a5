"""schedlab's version, where any module can read it (the package's face imports everything,
so a lower layer cannot import it for this one string)."""

__version__ = "0.1.0"
