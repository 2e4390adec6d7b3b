#!/usr/bin/python3
"""utvm_add_mlf (cmake/utvm_mlf.cmake) against good and malformed Model Library Format archives.

Usage: test_mlf_cmake.py <utvm binary> <source dir> <shared/models directory>
A graph archive from `utvm compile --mlf` configures a small project (sources added, the graph
JSON and parameters embedded, header generated); a missing, truncated, garbage, metadata-less or
source-less archive makes the configuration fail with a message naming the problem.
"""

import io
import os
import subprocess
import sys
import tarfile
import tempfile

UTVM, SOURCE, MODELS = sys.argv[1:4]
TMP = tempfile.mkdtemp(prefix="utvm_mlf_cmake_")


def check(cond, what, proc=None):
    if not cond:
        detail = ""
        if proc is not None:
            detail = "\n  rc=%d\n  stdout=%r\n  stderr=%r" % (proc.returncode, proc.stdout[-2000:],
                                                            proc.stderr[-2000:])
        raise AssertionError(what + detail)


def configure(archive, name):
    project = os.path.join(TMP, name)
    os.makedirs(project, exist_ok=True)
    with open(os.path.join(project, "CMakeLists.txt"), "w") as f:
        f.write("cmake_minimum_required(VERSION 3.20)\nproject(mlf_check C)\n"
                "include(%s/cmake/utvm_mlf.cmake)\n"
                "add_library(app STATIC app.c)\nutvm_add_mlf(app \"%s\")\n" % (SOURCE, archive))
    with open(os.path.join(project, "app.c"), "w") as f:
        f.write("int app_marker(void);\nint app_marker(void) { return 0; }\n")
    return subprocess.run(["cmake", "-S", project, "-B", os.path.join(project, "build")],
                          capture_output=True, text=True, timeout=120)


def tar_of(files):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as t:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def write(name, data):
    p = os.path.join(TMP, name)
    with open(p, "wb") as f:
        f.write(data)
    return p


def main():
    good = os.path.join(TMP, "ic_graph.tar")
    proc = subprocess.run([UTVM, "compile", os.path.join(MODELS, "mlperf_tiny_ic_resnet8_int8.tflite"),
                           "--mlf", good], capture_output=True, text=True, timeout=120)
    check(proc.returncode == 0, "utvm compile --mlf", proc)
    proc = configure(good, "good")
    check(proc.returncode == 0, "a good archive configures", proc)
    build = os.path.join(TMP, "good", "build", "mlf", "app_ic_graph")
    check(os.path.exists(os.path.join(build, "utvm_mlf_default.h")) and
          os.path.exists(os.path.join(build, "codegen/host/src/default_lib0.c")),
          "the archive was extracted and its header generated")
    print("ok   a graph archive of utvm compile configures")

    data = open(good, "rb").read()
    bad = {
        "missing": (os.path.join(TMP, "nowhere.tar"), "does not exist"),
        "truncated": (write("truncated.tar", data[:700]), ""),
        "garbage": (write("garbage.tar", bytes(range(256)) * 8), ""),
        "no_metadata": (write("no_metadata.tar", tar_of({"./codegen/host/src/x.c": b"int x;\n"})),
                        "has no metadata.json"),
        "no_sources": (write("no_sources.tar", tar_of({"./metadata.json": b"{}"})),
                       "has no codegen/host/src"),
    }
    for name, (archive, message) in sorted(bad.items()):
        proc = configure(archive, name)
        text = " ".join((proc.stdout + proc.stderr).split())
        check(proc.returncode != 0, "%s archive: the configuration fails" % name, proc)
        check("utvm_add_mlf" in text or "archive" in text.lower() or "tar" in text.lower(),
              "%s archive: the message names the archive or utvm_add_mlf" % name, proc)
        check(message in text, "%s archive: says %r" % (name, message), proc)
        print("ok   %s archive refused" % name)
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
