"""The environment contract a run hands every shim: settings (SAFEDEL_* and the config
scopes), host (terminal, CI, editor, agent harness), and the run's fixed values in its
run record, found through a run pointer (runpointer); the pointers of runs that did
not end (stalepointers).

May import: the leaves of core/ only.
"""
