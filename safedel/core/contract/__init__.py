"""The environment contract a run hands every shim: settings (SAFEDEL_* and the config
scopes), host (terminal, CI, editor, agent harness), the exempt roots' identities
(exemptids), and the run's fixed values in its run record, found through a run pointer
(runpointer); the pointers of runs that did not end (stalepointers).

settings  : the environment and the config file, read into one Settings value
userconfig: the user config file's values as they apply (what it widens waits)
confirmed : the config files a person confirmed (`safedel config trust`)
host      : who runs safedel
exemptids : the exempt roots as the directories they were when the run started
runrecord : the values a run fixed when it started
runpointer: how a process under a run finds its record (Linux)
keeperfind: where a process under a run finds its guard keeper's publication (Linux)
keptrecord: the run's record as the keeper holds it; the run's files checked against it

May import: the leaves of core/ only.
"""
