#!/usr/bin/env python3
"""lib-fences.py BUILD_DIR: sim/lib's folders see only the folders below
them (sim/lib/meson.build), as the layers do. For one source of each
folder, its own compile command (BUILD_DIR/compile_commands.json, as meson
wrote it) is run again with -fsyntax-only and a header of another folder
forced in (-include): a header of the folder itself or of one below must
compile, one above or beside must be refused for not being found. So an
include that reaches up fails the build, and this test says which fence
moved."""
import json
import os
import shlex
import subprocess
import sys

# folder: (a source in it, a header of it, the folders it may see)
FOLDERS = {
    "read": ("source.c", "schedule.h", ["read"]),
    "runtime": ("runtime.c", "runtime.h", ["runtime", "read"]),
    "alloc": ("alloc.c", "alloc.h", ["alloc", "runtime", "read"]),
    "analysis": ("plan.c", "plan.h", ["analysis", "runtime", "read"]),
}


def command(entries, path):
    """The compile command of sim/lib/PATH, for -fsyntax-only."""
    for e in entries:
        if os.path.normpath(os.path.join(e["directory"], e["file"])).endswith(os.path.join("sim", "lib", path)):
            args = e.get("arguments") or shlex.split(e["command"])
            out, skip = [], False
            for a in args:
                if skip:
                    skip = False
                elif a in ("-o", "-MF", "-MQ", "-MT"):
                    skip = True
                elif a not in ("-MD", "-MMD", "-c"):
                    out.append(a)
            return e["directory"], out
    return None, None


def main():
    if len(sys.argv) != 2:
        print("usage: lib-fences.py BUILD_DIR", file=sys.stderr)
        return 64
    try:
        with open(os.path.join(sys.argv[1], "compile_commands.json")) as f:
            entries = json.load(f)
    except OSError as e:
        print("lib-fences: %s" % e, file=sys.stderr)
        return 66
    fail = 0
    for folder, (source, _, sees) in FOLDERS.items():
        cwd, args = command(entries, os.path.join(folder, source))
        if args is None:
            print("not ok - sim/lib/%s/%s is not in compile_commands.json" % (folder, source))
            fail = 1
            continue
        for other, (_, header, _) in FOLDERS.items():
            r = subprocess.run(args + ["-fsyntax-only", "-include", header], cwd=cwd,
                               capture_output=True, text=True)
            what = "sim/lib/%s including %s (sim/lib/%s)" % (folder, header, other)
            if other in sees:
                if r.returncode == 0:
                    print("ok - %s compiles" % what)
                else:
                    print("not ok - %s does not compile" % what)
                    print("# " + r.stderr.strip().replace("\n", "\n# "))
                    fail = 1
            elif r.returncode != 0 and header in r.stderr and ("No such file" in r.stderr or "not found" in r.stderr):
                print("ok - %s is refused" % what)
            else:
                print("not ok - %s %s" % (what, "compiles: the fence leaks" if r.returncode == 0 else "failed, but not at the fence"))
                if r.returncode:
                    print("# " + r.stderr.strip().replace("\n", "\n# "))
                fail = 1
    return fail


if __name__ == "__main__":
    sys.exit(main())
