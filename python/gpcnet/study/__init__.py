"""Congestion studies with real applications (SPEC Part C): co-run settings
I-IV with rotations, topology-aware bullies, network counters, reports."""
