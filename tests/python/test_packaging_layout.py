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


def test_every_data_file_is_in_the_package_data():
    # data/catalog.json (the kernels, written by the C build) is read when
    # gpcnet.metrics.catalog is imported: a pip install of python/ alone needs it.
    import fnmatch
    text = (ROOT / "pyproject.toml").read_text()
    globs = re.search(r'^\[tool\.setuptools\.package-data\]\ngpcnet = \[(.*)\]$', text, re.M).group(1)
    globs = globs.replace('"', "").split(", ")
    data = [p.relative_to(ROOT / "gpcnet").as_posix() for p in (ROOT / "gpcnet" / "data").iterdir()]
    assert "data/catalog.json" in data
    missed = [d for d in data if not any(fnmatch.fnmatch(d, g) for g in globs)]
    assert missed == [], f"not in pyproject.toml's package-data: {missed}"
