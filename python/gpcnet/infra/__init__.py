"""What every command stands on: the one error type, safe writes, bounded reading of input files, signals, the forked sampler."""
