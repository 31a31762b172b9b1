"""gpcnet: analysis tool for GPCNeT results (JSON schema gpcnet-results v1)."""

__version__ = "0.1.0"
