"""Congestion studies with real applications (docs/studies.md): co-run settings
I-IV with rotations, topology-aware bullies, network counters, reports."""
