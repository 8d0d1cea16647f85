"""The command as the attacker: a second thread rewrites the path of a deleting call
(or a rename) after the net has read it. Were the call handed back to the kernel
(CONTINUE), the kernel would read the path afresh and act on the rewritten one: a
workspace file deleted for real, or moved into the temp dir and deleted there. The net
does what it allows itself, on the name it read, so every workspace file ends in place
or in the trash."""

import subprocess

from conftest import require
from netkit import require_net

# One thread calls unlink(buf) (or rename(buf, "<tmp>/landed")) over and over on a
# fresh temp file; the other keeps flipping buf between that temp file and the victim.
RACE = r"""
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

static volatile char buf[4096];  /* volatile: every store of the flip is made */
static char decoy[4096], victim[4096];
static atomic_int stop;

static void put(const char *path) {
    size_t i = 0;
    do buf[i] = path[i]; while (path[i++]);
}

static void *flip(void *unused) {
    (void)unused;
    while (!atomic_load(&stop)) {
        put(victim);
        put(decoy);
    }
    return NULL;
}

int main(int argc, char **argv) {
    /* argv: unlink|rename decoy victim landed rounds */
    int renaming = strcmp(argv[1], "rename") == 0;
    strncpy(decoy, argv[2], sizeof decoy - 1);
    strncpy(victim, argv[3], sizeof victim - 1);
    put(decoy);
    pthread_t other;
    pthread_create(&other, NULL, flip, NULL);
    int rounds = atoi(argv[5]);
    for (int i = 0; i < rounds && access(victim, F_OK) == 0; i++) {
        close(open(decoy, O_CREAT | O_WRONLY, 0600));
        if (renaming)
            rename((const char *)buf, argv[4]);
        else
            unlink((const char *)buf);
    }
    atomic_store(&stop, 1);
    pthread_join(other, NULL);
    return 0;
}
"""


def _race_program(directory):
    source = directory / "race.c"
    source.write_text(RACE)
    program = directory / "race"
    done = subprocess.run(
        [require("gcc"), "-O1", "-pthread", "-o", str(program), str(source)],
        capture_output=True,
    )
    assert done.returncode == 0, done.stderr
    return str(program)


def _attack(sandbox, mode, victims):
    program = _race_program(sandbox.root)
    tmp = sandbox.tmpdir
    script = " ; ".join(
        f"{program} {mode} {tmp}/decoy {victim} {tmp}/landed 400" for victim in victims
    )
    done = sandbox.run(require("dash"), "-c", script)
    assert done.returncode == 0, done.stderr
    trashed = sandbox.trashed_names()
    lost = [v.name for v in victims if not v.exists() and v.name not in trashed]
    assert lost == [], f"deleted for real: {lost}"
    assert not (tmp / "landed").exists() or (tmp / "landed").read_bytes() == b""


def _victims(sandbox):
    victims = []
    for index in range(20):
        victim = sandbox.work / f"precious-{index}.txt"
        victim.write_text(f"keep {index}\n")
        victims.append(victim)
    return victims


def test_a_rewritten_unlink_path_never_deletes_a_workspace_file(sandbox):
    require_net()
    _attack(sandbox, "unlink", _victims(sandbox))


def test_a_rewritten_rename_source_never_carries_a_workspace_file_out(sandbox):
    require_net()
    victims = _victims(sandbox)
    _attack(sandbox, "rename", victims)
    for victim in victims:
        assert victim.read_text() == victim.name.replace("precious-", "keep ").replace(
            ".txt", "\n"
        )  # a rename of it out of the workspace is EXDEV: it stays where it was
