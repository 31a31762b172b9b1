"""The gpcnet commands that write one output file (`-o`), as argument
lists for an output name, shared by the output tests of the Python tool
and the security tests of special files at output names."""


def commands(run, text) -> dict:
    """Each command's arguments for an output path, given a results JSON
    (`run`) and a text output (`text`) to read."""
    return {
        "report": lambda out: ("report", run, "-o", out),
        "plot": lambda out: ("plot", run, "--kind", "ci", "-o", out),
        "table": lambda out: ("table", run, "-o", out),
        "parse": lambda out: ("parse", text, "-o", out),
    }


SUFFIX = {"report": "r.html", "plot": "ci.svg", "table": "t.md", "parse": "p.json"}
