"""Run in a copy of python/ (PYTHONPATH): the study's path from choosing
a run's counter source to its record in a study JSON, without MPI: the
mpirun launcher's counter_sampler, start, stop, sampling.record, then the
study schema's check of a document holding the record. Prints the record."""

import json
import sys
import tempfile

sys.path.insert(0, sys.argv[1])          # tests/security: a small study document
import study_docs  # noqa: E402

from gpcnet.study import document, launch, sampling  # noqa: E402

with tempfile.TemporaryDirectory() as work:
    launcher = launch.make("mpirun", 1, work)
    s = launcher.counter_sampler(["n1"], 1.0, "sampler-toy", 60.0)
    s.start()
    rec = sampling.record(s, 100.0, 1.0, 1.0)
doc = study_docs.corun()
doc["runs"][0]["counters"] = rec
document.validate(doc, "toy study")
print(json.dumps(rec))
