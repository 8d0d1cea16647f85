"""The environment contract a run hands every shim: settings (SAFEDEL_* and the config
scopes), host (terminal, CI, editor, agent harness), the exempt roots' identities
(exemptids), and the run's fixed values in its run record, found through a run pointer.

May import: the leaves of core/ only.
"""
