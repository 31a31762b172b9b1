"""Which NIC each rank uses on a multi-NIC node, and the variables that make its MPI use it (the rules gpcnet-bind applies)."""
