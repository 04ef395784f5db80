"""Benchmark harness: a scale data set, the real server under load, and the floor beside it."""
