"""What a person does with the trash: list, restore, undo, purge, retention, health.

catalog, catalogcache, catalogquery, catalogtable: the trash catalog behind `list`
restore, restoreflow, restorewalk, noreplace: putting items back by rename
recyclebin : the Windows recycle bin behind the same small interface
purge, retention, reportretention: purge and its scheduled passes
undo       : undoing a turn from the report
health     : doctor's view of the trash
quick      : the quick paths the console entry takes before loading the CLI

May import: safedel.core.
"""
