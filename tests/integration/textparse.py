"""Reading our 80/140-column tables back, as users' scripts do."""
import re

ROW = re.compile(r"^\|\s*(?P<name>[^|]+?) \|(?P<cells>(?: +[^|]*\|)+)$")


def tables(text: str) -> dict:
    """{title: [(name, [cell, ...]), ...]} for every table in the output."""
    out, title, lines = {}, None, text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("+") and set(line[1:-1]) == {"-"} and i + 1 < len(lines):
            nxt = lines[i + 1]
            if nxt.startswith("|") and nxt.count("|") == 2:
                title = nxt.strip("| ").strip()
                out[title] = []
                continue
        if title and line.startswith("|") and line.count("|") >= 4:
            cells = [c.strip() for c in line.strip("|").split("|")]
            name, values = cells[0], cells[1:]
            if name in ("Name", "") or line == lines[i - 1]:
                continue
            out[title].append((name, values))
    return out


def table_lines(text: str):
    return [l for l in text.splitlines() if l.startswith("|") or l.startswith("+")]
