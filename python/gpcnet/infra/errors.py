"""The one exception type the CLI turns into a one-line message and exit 2."""


class GpcnetError(Exception):
    """A user-facing problem with an input file (missing, malformed, invalid).

    The message already names the file, so the CLI prints it unchanged.
    """
