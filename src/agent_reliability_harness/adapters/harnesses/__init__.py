"""Benchmark harness formats: SWE-agent and mini-swe-agent trajectories, ATIF (Harbor,
Terminal-Bench), tau-bench / tau2-bench results, Inspect AI eval logs."""
