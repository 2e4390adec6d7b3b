"""The operator case sets the tests walk (as cmake/utvm_op_cases.cmake's UTVM_OP_CASE_SETS), each
a folder with a cases.json and, for a set with cases utvm does not run yet, a pending list:
  ops2: shared/models/ops2, less tests/data/ops2_pending.txt;
  tflm: tests/data/tflm (TFLM-oracle cases generated in the repository);
  tflm_float: tests/data/tflm_float, less tests/data/tflm_float_pending.txt (the float32
        TFLM-oracle cases; bit-exact on hosts; on a Cortex-M board the cases of
        tests/data/tflm_float_board_tolerance.txt compare within their tolerance).
A test runs every case bit-exact and expects the pending ones refused with a text. Python
standard library only."""

import json
import os

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")


def sets(models_dir):
    """[(set, folder, pending list or None)] for the shared/models folder models_dir (folders
    absolute)."""
    return [("ops2", os.path.abspath(os.path.join(models_dir, "ops2")),
             os.path.join(DATA, "ops2_pending.txt")),
            ("tflm", os.path.abspath(os.path.join(DATA, "tflm")), None),
            ("tflm_float", os.path.abspath(os.path.join(DATA, "tflm_float")),
             os.path.join(DATA, "tflm_float_pending.txt"))]


def pending_names(pending_file):
    """The case names of a pending list (none for None)."""
    if pending_file is None:
        return set()
    with open(pending_file) as f:
        return {l.strip() for l in f if l.strip() and not l.startswith("#")}


def cases(models_dir):
    """[(set, folder, case, pending)], set by set in cases.json order; a pending name that is
    no case of its set is an error."""
    result = []
    for name, folder, pending_file in sets(models_dir):
        with open(os.path.join(folder, "cases.json")) as f:
            all_cases = json.load(f)["cases"]
        pending = pending_names(pending_file)
        unknown = pending - {c["name"] for c in all_cases}
        if unknown:
            raise SystemExit("%s names no case: %s" % (pending_file, sorted(unknown)))
        result += [(name, folder, c, c["name"] in pending) for c in all_cases]
    return result
