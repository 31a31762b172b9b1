"""gpcnet testbed: an emulated cluster on one machine (docs/testbed.md)."""
