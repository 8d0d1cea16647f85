"""What a person does with the trash: list, restore, undo, purge, retention, health.

catalog, catalogcache, catalogquery, catalogtable: the trash catalog behind `list`
entrycheck : what is wrong with an entry, as its info file and name show
opentrash  : a trash dir held open by descriptor while a restore or purge acts in it
restore, restoreflow, restorewalk, noreplace: putting items back by rename
restorelanding: where a restore may land (never in a trash dir, never through /proc)
recyclebin : the Windows recycle bin behind the same small interface
purge, retention, reportretention: purge and its scheduled passes
itemtimes  : an item's birth and its entry into the trash, as the kernel keeps them
undo       : undoing a turn from the report
health     : doctor's view of the trash
quick      : the quick paths the console entry takes before loading the CLI

May import: safedel.core.
"""
