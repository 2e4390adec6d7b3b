#!/usr/bin/python3
"""Every TVM Python name that README.md, docs/*.md and the Project API template mention exists in
TVM v0.18.0, as the list below says (each entry checked by hand against v0.18.0's sources:
python/tvm/... file and definition). Fails on a name not in the list, e.g. the nonexistent
tvm.micro.generate_project_from_mlf (it is tvm.micro.project.generate_project_from_mlf), and on
a method called in README's Python blocks on an object whose class lacks it.

Usage: test_tvm_calls.py SOURCE_DIR [TVM_SOURCE_DIR]
With TVM_SOURCE_DIR (a checkout of apache/tvm at v0.18.0; CI has none) the list itself is
checked: each definition must be in its file.
"""

import glob
import os
import re
import sys

# name -> (file under TVM's tree, definition looked for in it)
TVM_NAMES = {
    "tvm.micro": ("python/tvm/micro/__init__.py", "from .project import generate_project"),
    "tvm.micro.testing": ("python/tvm/micro/testing/__init__.py", "from .utils import"),
    "tvm.micro.project": ("python/tvm/micro/project.py", "class GeneratedProject"),
    "tvm.micro.Session": ("python/tvm/micro/session.py", "class Session"),
    "tvm.micro.generate_project": ("python/tvm/micro/project.py", "def generate_project("),
    "tvm.micro.project.generate_project_from_mlf": ("python/tvm/micro/project.py",
                                                    "def generate_project_from_mlf("),
    "tvm.micro.export_model_library_format": ("python/tvm/micro/model_library_format.py",
                                              "def export_model_library_format("),
    "tvm.micro.create_local_graph_executor": ("python/tvm/micro/session.py",
                                              "def create_local_graph_executor("),
    "tvm.contrib.graph_executor.create": ("python/tvm/contrib/graph_executor.py",
                                          "def create(graph_json_str, libmod, device):"),
    "tvm.micro.AutoTvmModuleLoader": ("python/tvm/micro/build.py", "class AutoTvmModuleLoader"),
    "tvm.micro.autotvm_build_func": ("python/tvm/micro/build.py", "def autotvm_build_func("),
    "tvm.micro.testing.get_target": ("python/tvm/micro/testing/utils.py", "def get_target("),
    "tvm.transform.PassContext": ("python/tvm/ir/transform.py", "class PassContext("),
    "tvm.runtime.executor.aot_executor.AotModule": ("python/tvm/runtime/executor/aot_executor.py",
                                                    "class AotModule("),
    "tvm.nd.array": ("python/tvm/runtime/ndarray.py", "def array("),
    "tvm.autotvm.LocalBuilder": ("python/tvm/autotvm/measure/measure_methods.py",
                                 "class LocalBuilder("),
    "tvm.autotvm.LocalRunner": ("python/tvm/autotvm/measure/measure_methods.py",
                                "class LocalRunner("),
    "tvm.autotvm.measure_option": ("python/tvm/autotvm/measure/measure.py",
                                   "def measure_option("),
    "tvm.relay.backend": ("python/tvm/relay/backend/__init__.py", "from .executor import Executor"),
    "relay.build": ("python/tvm/relay/build_module.py", "def build("),
    "relay.frontend.from_tflite": ("python/tvm/relay/frontend/tflite.py", "def from_tflite("),
    # Global functions the device registers (TVM's CRT registers the same names).
    "tvm.graph_executor.create": ("src/runtime/crt/graph_executor_module/graph_executor_module.c",
                                  '"tvm.graph_executor.create"'),
    "tvm.aot_executor.create": ("src/runtime/crt/aot_executor_module/aot_executor_module.c",
                                '"tvm.aot_executor.create"'),
    "tvm.contrib.random.random_fill": ("src/runtime/crt/common/crt_runtime_api.c",
                                       '"tvm.contrib.random.random_fill"'),
    "tvm.rpc.server.ModuleGetFunction": ("src/runtime/crt/common/crt_runtime_api.c",
                                         '"tvm.rpc.server.ModuleGetFunction"'),
    "tvm.rpc.server.GetCRTMaxPacketSize": ("src/runtime/crt/common/crt_runtime_api.c",
                                           '"tvm.rpc.server.GetCRTMaxPacketSize"'),
}

# Methods README's Python blocks call, by the variable's class: file and definitions.
METHODS = {
    "project": ("python/tvm/micro/project.py", ["build", "flash", "transport"]),
    "session": ("python/tvm/micro/session.py", ["create_aot_executor", "get_system_lib",
                                                "device"]),
    "aot": ("python/tvm/runtime/executor/aot_executor.py", ["get_input", "run", "get_output"]),
    "graph": ("python/tvm/contrib/graph_executor.py", ["set_input", "run", "get_output"]),
    "module": ("python/tvm/relay/backend/executor_factory.py", ["get_graph_json", "get_params"]),
}

NAME = re.compile(r"(?<![\w.])((?:tvm|relay)(?:\.[A-Za-z_]\w*)+)")
METHOD = re.compile(r"(?<![\w.])(project|session|aot|graph|module)\.([A-Za-z_]\w*)")


def names_in(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return {m.group(1).rstrip(".") for m in NAME.finditer(text)}, text


def python_blocks(text):
    return re.findall(r"```python\n(.*?)```", text, re.S)


def main():
    src = sys.argv[1]
    failures = []
    files = [os.path.join(src, "README.md")] + sorted(glob.glob(os.path.join(src, "docs", "*.md")))
    files += sorted(glob.glob(os.path.join(src, "tvm", "template_project", "*.py")))
    seen = set()
    for path in files:
        names, text = names_in(path)
        for name in sorted(names):
            seen.add(name)
            if name not in TVM_NAMES:
                failures.append("%s: %s is not a TVM v0.18 name this test knows" %
                                (os.path.relpath(path, src), name))
        if path.endswith("README.md"):
            for block in python_blocks(text):
                for var, method in METHOD.findall(block):
                    if method not in METHODS[var][1]:
                        failures.append("README.md: %s.%s is not checked against TVM v0.18" %
                                        (var, method))
    if len(sys.argv) > 2:
        tvm = sys.argv[2]
        entries = [(n, f, d) for n, (f, d) in TVM_NAMES.items()]
        entries += [("%s.%s" % (v, m), f, m) for v, (f, ms) in METHODS.items() for m in ms]
        for name, rel, definition in entries:
            with open(os.path.join(tvm, rel), encoding="utf-8") as f:
                body = f.read()
            if "." in name and name.split(".")[0] in METHODS:
                ok = re.search(r"(def %s\(|self\.%s =|def %s\b)" % ((definition,) * 3), body)
            else:
                ok = definition in body
            if not ok:
                failures.append("TVM source: %s not in %s" % (definition, rel))
        print("checked %d entries against %s" % (len(entries), tvm))
    for f in failures:
        print("FAIL", f)
    print("%d TVM names in README.md, docs/ and the template: %s" % (len(seen),
                                                                   ", ".join(sorted(seen))))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
