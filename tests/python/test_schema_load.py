"""Schema v1 and the loader: valid documents load, every kind of bad input
gives one clear GpcnetError naming the file."""

import copy
import json

import pytest

from conftest import FIXTURES, REAL, read
from gpcnet.infra.errors import GpcnetError
from gpcnet.results_json.load import InvalidResults, load, validate
from gpcnet.results_json.schema import schema
from jsonschema import Draft202012Validator

ALL_JSON = sorted(FIXTURES.glob("*.json")) + sorted(REAL.glob("*.json"))


def test_schema_is_valid_draft_2020_12():
    Draft202012Validator.check_schema(schema())
    assert schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize("path", ALL_JSON, ids=lambda p: p.name)
def test_every_json_fixture_is_valid(path):
    doc = load(path)
    validate(doc)  # the public entry point the core team's tests use
    assert doc["schema"] == "gpcnet-results"


def _problem(doc) -> str:
    with pytest.raises(InvalidResults) as info:
        validate(doc)
    return str(info.value)


def test_validate_names_the_path_of_a_wrong_value():
    doc = read("load_run.json")
    doc["tables"][0]["rows"][1]["avg"] = "fast"
    assert "$.tables[0].rows[1].avg" in _problem(doc)


def test_run_documents_must_carry_what_text_cannot():
    doc = read("load_run.json")
    doc["tables"][0]["rows"][0]["samples"] = None
    assert "samples" in _problem(doc)
    doc = read("load_run.json")
    doc["source"] = "text"
    doc["tables"][0]["rows"][0]["samples"] = None
    validate(doc)  # parsed text may lack it


def test_load_test_needs_placement_and_impact():
    doc = read("load_run.json")
    del doc["impact"]
    assert "impact" in _problem(doc)
    net = read("network_run.json")
    assert "impact" not in net and "placement" not in net
    validate(net)


def test_direction_follows_unit():
    doc = read("load_run.json")
    doc["tables"][0]["rows"][0]["better"] = "higher"  # a latency
    assert "better" in _problem(doc)


def test_aborted_needs_a_reason():
    doc = read("load_run.json")
    doc["status"] = "aborted"
    assert "abort_reason" in _problem(doc)
    doc["abort_reason"] = "SIGTERM"
    validate(doc)


def test_histogram_counts_must_sum_to_samples():
    doc = read("load_run.json")
    doc["tables"][0]["rows"][0]["samples"] += 1
    assert "counts sum to" in _problem(doc)


def test_histogram_bins_must_increase():
    doc = read("load_run.json")
    bins = doc["tables"][0]["rows"][0]["histogram"]["bins"]
    bins[0], bins[1] = bins[1], bins[0]
    assert "increasing" in _problem(doc)


def test_duplicate_table_ids_are_rejected():
    doc = read("load_run.json")
    doc["tables"].append(copy.deepcopy(doc["tables"][0]))
    assert "appears twice" in _problem(doc)


def test_impact_matrix_shape_is_checked():
    doc = read("load_verbose_matrix.json")
    doc["impact_matrix"]["p99"][0].pop()
    assert "impact_matrix.p99" in _problem(doc)


def test_unknown_keys_are_allowed_for_compatible_additions():
    doc = read("network_run.json")
    doc["config"]["adaptive_tolerance"] = 0.01
    doc["future_section"] = {}
    validate(doc)


def test_many_problems_are_summarised_on_one_line():
    doc = read("load_run.json")
    for row in doc["tables"][0]["rows"]:
        row["avg"] = "x"
        row["p99"] = "y"
    message = _problem(doc)
    assert "\n" not in message and "more)" in message


@pytest.mark.parametrize("content, expected", [
    (None, "no such file"),
    ("{not json", "malformed JSON at line 1 column 2"),
    ('{"avg": NaN}', "NaN"),
    ("[1, 2]", "top level is a JSON list"),
    ('{"schema": "other"}', "not a GPCNeT results document"),
    ('{"schema": "gpcnet-results", "schema_version": 2}', "schema_version 2 is not supported"),
    (b"\xff\xfe binary", "not UTF-8"),
])
def test_load_errors_name_the_file(tmp_path, content, expected):
    path = tmp_path / "bad.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    with pytest.raises(GpcnetError) as info:
        load(path)
    message = str(info.value)
    assert message.startswith(str(path)) and expected in message and "\n" not in message


def test_load_rejects_a_directory(tmp_path):
    with pytest.raises(GpcnetError, match="is a directory"):
        load(tmp_path)


def test_partial_running_document_from_the_real_binary_loads():
    doc = load(REAL / "network_test_running.json")
    assert doc["status"] == "running" and doc["finished_at"] is None
    assert json.loads((REAL / "network_test_running.json").read_text())["tables"][0]["rows"]
