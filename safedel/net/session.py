"""The runner's one entry point: start a command under the net, or say why not."""

import os

from ..core.contract.settings import warn_once
from ..core.git import inert
from . import birth

# Set in the command's environment while the net watches it: a nested `safedel run`
# finds the listener slot taken (EBUSY) and knows the outer net already covers it.
ACTIVE_VAR = "SAFEDEL_NET"


class Net:
    def __init__(self, begun=None):
        # The run begins (begun, or now): what is born since is the run's (birth.mark).
        self._begun = begun or birth.clock_ns()
        self.machine = os.uname().machine
        self._installer = _installer(self.machine)
        self._supervisor = None
        # How the child is forked: net.spawn.spawn's signature (`safedel serve` hands
        # it a spare made ahead of time, serve/spares.py).
        self.fork = None

    def spawn(self, program, argv, env, setsigdef=(), file_actions=(), setsid=False):
        """os.posix_spawn's pid, with the filter installed in the child before exec."""
        from . import spawn, supervisor

        nested = env.get(ACTIVE_VAR) == "1"
        env = dict(env)
        env[ACTIVE_VAR] = "1"
        fork = self.fork or spawn.spawn
        # git is found before the command exists: one it puts on PATH is not git.
        git = inert.locate(env)
        # Before the command exists, too: ignore rules written later are not trusted.
        started = birth.mark(self._begun)
        child = fork(self._installer, program, argv, env, setsigdef, file_actions, setsid)
        if child.listener is None:
            if not nested:
                warn_once(
                    "the net is not available here "
                    f"({os.strerror(child.install_errno)}); running with the shims only"
                )
            return child.pid
        self._supervisor = supervisor.Supervisor(
            child.listener, env, self.machine, _stderr_of(file_actions), git, started=started
        )
        self._supervisor.start()
        return child.pid

    def close(self):
        if self._supervisor is not None:
            self._supervisor.stop()
            self._supervisor = None


def _stderr_of(file_actions):
    """A descriptor of the command's own stderr when it is not safedel's (capture mode,
    serve's pipes and pty): the net's markers then arrive in the stream the harness
    reads. Replays the actions' effect on the child's descriptors to find it."""
    source = {}  # child fd -> the parent's fd, or ("open", path) it will hold
    for action in file_actions:
        if action[0] == os.POSIX_SPAWN_OPEN:
            source[action[1]] = ("open", action[2])
        elif action[0] == os.POSIX_SPAWN_DUP2:
            source[action[2]] = source.get(action[1], action[1])
    found = source.get(2)
    if found is None or found == 2:
        return None
    if isinstance(found, tuple):
        try:  # the same terminal, never made this process's controlling one
            return os.open(found[1], os.O_WRONLY | os.O_NOCTTY)
        except OSError:
            return None
    return os.dup(found)  # the same open file, so the same offset


def _installer(machine):
    """The prepared filter, built once per process: it never changes, and a resident
    `safedel serve` starts every run under the net."""
    if machine not in _prepared:
        # Here, not at the top: `--net off` (or a kernel without the net) must not pay
        # for ctypes and the supervisor.
        from . import install

        _prepared[machine] = install.Installer(machine)
    return _prepared[machine]


_prepared = {}  # machine -> Installer; "kernel" -> what kernel_supports found


def prepare(value, environ, begun=None):
    """A Net for `safedel run`, or None when it is switched off or unsupported.
    begun: when the run began (time.time_ns()), if not now."""
    from . import kernel_supports, wanted

    if not wanted(value, environ):
        return None
    if "kernel" not in _prepared:
        _prepared["kernel"] = kernel_supports()[0]
    return Net(begun) if _prepared["kernel"] else None
