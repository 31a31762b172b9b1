"""The catalogue of GPCNeT's tests and congestors, the Congestion Impact formula, and the published results."""
