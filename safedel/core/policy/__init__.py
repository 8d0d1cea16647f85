"""Where a deletion target stands: protected, in a workspace, exempt, or outside.

targets       : the protected/exempt judgement of one target
exemptroot    : whether a target lies in the very directory an exempt root was fixed as
workspace     : the workspace roots a run works in
scopes        : the four scopes those roots merge (session, local, project, user), and
                which roots of a config file count before a person confirms it
workspacefiles: the roots as the config files on disk hold them
kept          : kept roots (the user's trash inside an exempt dir), judged like protected

May import: contract, trash (dirs), the leaves of core/. It may look up pyshim's
START_DIR in sys.modules, but never imports pyshim.
"""
