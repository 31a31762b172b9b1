"""Every subpackage of gpcnet is in the distribution: an installed tool (pip,
Spack +python) must not miss a module the editable install happens to see."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "python"


def test_every_subpackage_is_listed_in_pyproject():
    text = (ROOT / "pyproject.toml").read_text()
    listed = set(re.search(r"^packages = \[(.*)\]$", text, re.M).group(1).replace('"', "").split(", "))
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "gpcnet").rglob("__init__.py")}
    assert found == listed, f"pyproject.toml packages {sorted(listed)} != {sorted(found)}"
