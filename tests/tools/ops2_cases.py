"""The ops2 operator cases (shared/models/ops2/cases.json) and which of them utvm does not run
yet (tests/data/ops2_pending.txt): a test runs the others bit-exact and expects the pending
ones refused with a text. Python standard library only."""

import json
import os

PENDING_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data",
                            "ops2_pending.txt")


def pending_names():
    with open(PENDING_FILE) as f:
        return {l.strip() for l in f if l.strip() and not l.startswith("#")}


def cases(models_dir):
    """[(case, pending)] in cases.json order; a pending name that is no case is an error."""
    with open(os.path.join(models_dir, "ops2", "cases.json")) as f:
        all_cases = json.load(f)["cases"]
    pending = pending_names()
    unknown = pending - {c["name"] for c in all_cases}
    if unknown:
        raise SystemExit("ops2_pending.txt names no case: %s" % sorted(unknown))
    return [(c, c["name"] in pending) for c in all_cases]
