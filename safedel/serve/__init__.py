"""`safedel serve`: a resident executor for agent harnesses, speaking NDJSON over a Unix
socket or stdio (DESIGN.md, "Serve protocol").

protocol  : the envelope, line framing (1 MiB cap) and error responses
transport : the owner-only socket, the peer check, one connection's reader and writer
seal      : what keeps a served command from the server's channel (not dumpable, fds
            close-on-exec, stdio off fds 0 and 1, root runs without CAP_SYS_PTRACE)
sessions  : sessions, their settings, statistics and pending guard questions
commands  : the command table: each request's checks and what it does
runs      : one served command: its lifecycle (spawn, end, guard questions) and control
runsetup  : a run's command, environment, run record, channels (pipes or a pty) and net
runoutput : a run's streamed output (ProcessOutput) and its result (ProcessExit)
spares    : run directories made ahead, so starting a run creates no file
pointers  : a served run's pointer, left by its root before the exec
peers     : whether a client is a command inside a run, its own or another's
leftovers : the runs a server started, on disk, for the next server to end
asking    : guard questions sent the moment a run is refused (inotify on its signal)
terminal  : runs on a pseudo-terminal: the pty, its size, named keys
forking   : the server's side of the fork server that starts runs under the net
forkserver: the fork server itself, a small process (stdlib only) of its own
server    : connections and the lifecycle (signals, EOF, tree kill, socket removal)
"""
