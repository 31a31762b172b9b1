"""What the commands compute from results documents: comparison and the regression gate, the paper's table, slow nodes and NICs."""
