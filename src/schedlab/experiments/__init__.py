"""Experiments: sweep files, the resumable results store, parallel execution, analysis."""
