"""`make clean` in a release tarball without git (issue 31, case 5): the build's own
outputs are regenerable, so a real autoconf project unpacked from a tarball builds and
cleans under `safedel run` (net on and off) exactly as bare, with no refusal, while a
source file renamed to an object's name still counts.

The project is generated here: a configure.ac with 20 checks and a Makefile.in that
builds 61 objects into a static library and a program, with gcc's dependency files in
`src/.deps` (made by config.status). autoconf makes `configure`; `tar` packs it.
"""

import os
import subprocess

import pytest
from conftest import require

MODES = {"net": (), "net-off": ("--net", "off")}
NAME = "demo-1.0"
COUNT = 60
CONFIGURE_AC = """AC_INIT([demo], [1.0])
AC_CONFIG_SRCDIR([src/main.c])
AC_PROG_CC
AC_PROG_RANLIB
AC_CHECK_TOOL([AR], [ar], [:])
AC_CHECK_HEADERS([stdio.h stdlib.h string.h unistd.h fcntl.h errno.h sys/types.h sys/stat.h])
AC_CHECK_FUNCS([strdup memmove strchr getpid snprintf strerror])
AC_C_CONST
AC_TYPE_SIZE_T
AC_CHECK_SIZEOF([int])
AC_CHECK_SIZEOF([long])
AC_CONFIG_FILES([Makefile])
AC_CONFIG_COMMANDS([depdir], [mkdir -p src/.deps])
AC_OUTPUT
"""
MAKEFILE_IN = """CC = @CC@
CFLAGS = @CFLAGS@
DEFS = @DEFS@
AR = @AR@
RANLIB = @RANLIB@
OBJS = {objects}

all: demo

libdemo.a: $(OBJS)
\t$(AR) cr $@ $(OBJS)
\t$(RANLIB) $@

demo: src/main.o libdemo.a
\t$(CC) $(CFLAGS) -o $@ src/main.o libdemo.a

.c.o:
\t$(CC) $(CFLAGS) $(DEFS) -MMD -MF src/.deps/$(*F).d -c -o $@ $<

clean:
\trm -f $(OBJS) src/main.o libdemo.a demo src/.deps/*.d

.PHONY: all clean
"""
BUILD = "./configure && make -j2"


@pytest.fixture(scope="module")
def tarball(tmp_path_factory):
    """demo-1.0.tar.gz: the sources, configure.ac, Makefile.in and configure."""
    root = tmp_path_factory.mktemp("dist")
    project = root / NAME
    (project / "src").mkdir(parents=True)
    names = [f"f{i:02d}" for i in range(COUNT)]
    for index, name in enumerate(names):
        source = f"#include <stdio.h>\nint {name}(int x) {{ return x + {index}; }}\n"
        (project / "src" / f"{name}.c").write_text(source)
    calls = " + ".join(f"{n}(0)" for n in names[:5])
    declarations = "".join(f"int {n}(int);\n" for n in names[:5])
    main = f"{declarations}int main(void) {{ return ({calls}) == 10 ? 0 : 1; }}\n"
    (project / "src" / "main.c").write_text(main)
    (project / "configure.ac").write_text(CONFIGURE_AC)
    objects = " ".join(f"src/{n}.o" for n in names)
    (project / "Makefile.in").write_text(MAKEFILE_IN.format(objects=objects))
    subprocess.run([require("autoconf")], cwd=project, check=True, capture_output=True)
    subprocess.run(["rm", "-rf", str(project / "autom4te.cache")], check=True)
    archive = root / f"{NAME}.tar.gz"
    subprocess.run([require("tar"), "-czf", str(archive), NAME], cwd=root, check=True)
    return archive


def _unpack(archive, where):
    """The tarball unpacked in where, before any run: its files are older than a turn."""
    where.mkdir(parents=True, exist_ok=True)
    subprocess.run([require("tar"), "-xzf", str(archive)], cwd=where, check=True)
    return where / NAME


def _tree(project):
    found = set()
    for directory, dirs, files in os.walk(project):
        for name in dirs + files:
            path = os.path.join(directory, name)
            kind = "dir" if os.path.isdir(path) else "file"
            found.add((os.path.relpath(path, project), kind))
    return found


def _bare(sandbox, project, script):
    require("make")
    require("cc")
    env = sandbox.base_env()
    return subprocess.run(["sh", "-c", script], cwd=project, env=env, capture_output=True)


def _under_safedel(sandbox, project, script, turn, options):
    sandbox.turn = turn
    return sandbox.run("sh", "-c", script, cwd=project, run_options=options, timeout=600)


def _growth(sandbox, turn):
    """Trash events of a turn, per class: counted, or why they were not."""
    classes = {}
    for event in sandbox.report():
        if event.get("operation") == "trash" and event.get("turn") == turn:
            key = event.get("why", "counted") if event.get("counted") is False else "counted"
            classes[key] = classes.get(key, 0) + 1
    return classes


def _refusals(sandbox):
    return [e for e in sandbox.report() if e.get("operation") == "refuse"]


@pytest.mark.parametrize("mode", sorted(MODES))
def test_configure_make_and_make_clean_from_a_tarball_match_bare(sandbox, tarball, mode, tmp_path):
    bare = _unpack(tarball, tmp_path / "bare")
    ours = _unpack(tarball, sandbox.work)
    figures = {}
    for label, script in (("build", BUILD), ("clean", "make clean")):
        expected = _bare(sandbox, bare, script)
        before = len(sandbox.trashed_names())
        done = _under_safedel(sandbox, ours, script, f"turn-{label}", MODES[mode])
        assert done.returncode == expected.returncode == 0, done.stderr.decode()[-3000:]
        assert _tree(ours) == _tree(bare), label
        assert b"SAFE_DELETE_BULK" not in done.stderr
        assert _refusals(sandbox) == []
        growth = _growth(sandbox, f"turn-{label}")
        growth["trash items"] = len(sandbox.trashed_names()) - before
        figures[label] = growth
    print(f"\n[make-clean-tarball {mode}] trash growth per class: {figures}")
    clean = figures["clean"]
    # 61 objects and the library by content, the program and 61 dependency files by
    # birth after configure: nothing of make clean counted, everything in the trash.
    assert clean.get("build-output") == 2 * (COUNT + 1) + 2
    assert "counted" not in clean
    assert clean["trash items"] == 2 * (COUNT + 1) + 2
    assert not list(ours.glob("src/*.o")) and (ours / "src" / "f00.c").is_file()


def _built(sandbox, tarball, mode):
    project = _unpack(tarball, sandbox.work)
    done = _under_safedel(sandbox, project, BUILD, "turn-build", MODES[mode])
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    return project


@pytest.mark.parametrize("mode", sorted(MODES))
def test_a_source_renamed_to_an_object_still_counts(sandbox, tarball, mode):
    """`mv src/f00.c src/z.o`, then `rm -f src/*.o` at threshold 1: z.o keeps its
    birth (from the tarball, before configure) and its content (C text), so it is the
    turn's one counted deletion, while the 61 real objects are not counted."""
    project = _built(sandbox, tarball, mode)
    script = "mv src/f00.c src/z.o && rm -f src/*.o"
    options = ("--threshold", "1", *MODES[mode])
    done = _under_safedel(sandbox, project, script, "turn-rename", options)
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    events = {
        os.path.basename(e["path"]): e
        for e in sandbox.report()
        if e.get("operation") == "trash" and e.get("turn") == "turn-rename"
    }
    assert events["z.o"].get("counted", True) is True
    assert events["f01.o"]["why"] == "build-output"
    assert _growth(sandbox, "turn-rename") == {"counted": 1, "build-output": COUNT + 1}


@pytest.mark.parametrize("mode", sorted(MODES))
def test_two_sources_renamed_to_objects_are_refused(sandbox, tarball, mode):
    """Two counted sources pass a threshold of 1: the batch is refused whole."""
    project = _built(sandbox, tarball, mode)
    script = "mv src/f00.c src/z.o && mv src/f01.c src/y.o && rm -f src/*.o"
    options = ("--threshold", "1", *MODES[mode])
    done = _under_safedel(sandbox, project, script, "turn-rename", options)
    assert done.returncode != 0
    assert b"SAFE_DELETE_BULK_CONFIRM_REQUIRED" in done.stderr
    assert (project / "src" / "z.o").is_file() and (project / "src" / "f02.o").is_file()
    refused = {os.path.basename(e["path"]) for e in _refusals(sandbox)}
    assert {"z.o", "y.o", "f02.o"} <= refused


def _script(runtime):
    """z.o first (the turn's allowance of 1), then every other *.o, one by one."""
    if runtime == "node":
        code = "const fs=require('fs');fs.unlinkSync('src/z.o');"
        code += "for(const n of fs.readdirSync('src').sort())"
        code += "if(n.endsWith('.o')&&n!=='z.o')fs.unlinkSync('src/'+n)"
        return (require("node"), "-e", code)
    code = "import os\nos.remove('src/z.o')\nfor n in sorted(os.listdir('src')):\n"
    code += " if n.endswith('.o') and n != 'z.o': os.remove('src/'+n)"
    return (require("python3"), "-c", code)


@pytest.mark.parametrize("runtime", ["node", "python3"])
@pytest.mark.parametrize("renamed", [1, 2])
def test_node_and_python_shims_judge_outputs_alike(sandbox, tarball, runtime, renamed):
    """A clean-up script in Node or Python, file by file, at threshold 1, after
    `mv src/f00.c src/z.o` (and `mv src/f01.c src/y.o`): z.o is the turn's one counted
    deletion; the objects are not counted; y.o, a source, is refused."""
    project = _built(sandbox, tarball, "net-off")
    for index, name in enumerate(["z.o", "y.o"][:renamed]):
        os.rename(project / "src" / f"f{index:02d}.c", project / "src" / name)
    sandbox.turn = "turn-script"
    options = ("--threshold", "1", "--net", "off")
    done = sandbox.run(*_script(runtime), cwd=project, run_options=options)
    growth = _growth(sandbox, "turn-script")
    if renamed == 1:
        assert done.returncode == 0, done.stderr.decode()[-3000:]
        assert not list(project.glob("src/*.o"))
        assert growth == {"counted": 1, "build-output": COUNT + 1}
    else:
        assert done.returncode != 0
        assert (project / "src" / "y.o").is_file()
        assert [os.path.basename(e["path"]) for e in _refusals(sandbox)] == ["y.o"]
        assert growth == {"counted": 1, "build-output": COUNT + 1}  # y.o sorts last
