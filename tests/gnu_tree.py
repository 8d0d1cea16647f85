"""The copy of coreutils' rm and rmdir tests a GNU suite run uses (tests/gnu_suite.py).

A tree holds what `make check` reads from the source tree (init.sh, init.cfg, the Perl
modules, the tests) and a src/ directory with the tools under test, as the build would
put them there; nothing else of coreutils is needed.
"""

import os
import shutil
import subprocess

NOBODY = 65534
TOOLS = ("rm", "rmdir", "unlink")
COPIED = ("init.cfg", "tests/init.sh", "tests/lang-default", "tests/envvar-check")
COPIED += ("tests/other-fs-tmpdir", "tests/d_type-check", "tests/no-perl")
PERL_MODULES = ("tests/Coreutils.pm", "tests/CuSkip.pm", "tests/CuTmpdir.pm")
# What `getlimits` prints that init.cfg's getlimits_ may read (LP64 Linux values).
GETLIMITS = """#!/bin/sh
cat <<'EOF'
CHAR_MAX=127
CHAR_MIN=-128
INT_MAX=2147483647
INT_MIN=-2147483648
INT_OFLOW=2147483648
INT_UFLOW=-2147483649
UINT_MAX=4294967295
UINT_OFLOW=4294967296
LONG_MAX=9223372036854775807
LONG_MIN=-9223372036854775808
LONG_OFLOW=9223372036854775808
LONG_UFLOW=-9223372036854775809
ULONG_MAX=18446744073709551615
ULONG_OFLOW=18446744073709551616
SIZE_MAX=18446744073709551615
SIZE_OFLOW=18446744073709551616
SSIZE_MAX=9223372036854775807
SSIZE_MIN=-9223372036854775808
INTMAX_MAX=9223372036854775807
INTMAX_MIN=-9223372036854775808
UINTMAX_MAX=18446744073709551615
OFF_T_MAX=9223372036854775807
OFF_T_MIN=-9223372036854775808
OFF_T_OFLOW=9223372036854775808
EOF
"""


def tests_in(checkout):
    found = []
    for group in ("rm", "rmdir"):
        folder = os.path.join(checkout, "tests", group)
        for name in sorted(os.listdir(folder)):
            if name.endswith((".sh", ".pl", ".xpl")):
                found.append(f"{group}/{name}")
    return found


def make_tree(checkout, tree, tools):
    """A copy of the test files at tree, with src/ holding tools {name: target}."""
    os.makedirs(os.path.join(tree, "tests"))
    for part in (*COPIED, *PERL_MODULES):
        if os.path.exists(os.path.join(checkout, part)):
            shutil.copy2(os.path.join(checkout, part), os.path.join(tree, part))
    for group in ("rm", "rmdir"):
        shutil.copytree(os.path.join(checkout, "tests", group), os.path.join(tree, "tests", group))
    # r-root.sh reads rm's source for a constant; the copy lives only in the tree.
    remove_c = os.path.join(checkout, "src", "remove.c")
    with open(os.path.join(tree, "config.h"), "w") as handle:
        handle.write("#define HAVE_OPENAT 1\n#define HAVE_FDOPENDIR 1\n")
    src = os.path.join(tree, "src")
    os.mkdir(src)
    for name, target in tools.items():
        os.symlink(target, os.path.join(src, name))
    if os.path.isfile(remove_c):
        shutil.copy2(remove_c, os.path.join(src, "remove.c"))
    with open(os.path.join(src, "getlimits"), "w") as handle:
        handle.write(GETLIMITS)
    os.chmod(os.path.join(src, "getlimits"), 0o755)
    subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", tree], check=True)
