"""The package version: one place, read by ``gin_sim.__version__`` and written into run manifests."""

__version__ = "0.1.0"
