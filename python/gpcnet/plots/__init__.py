"""The figures, drawn with matplotlib."""
