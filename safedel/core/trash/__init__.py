"""The freedesktop trash, as the engine writes it.

move      : an info file with O_EXCL, then one rename into files/
hardlinks : a file that arrives with other hard links gets an inode of its own
inflight  : an info file's move under way, told from one whose mover is gone
dirs      : which trash an item goes to (home trash, $topdir/.Trash/$uid, .Trash-$uid)
info      : the .trashinfo format
trust     : which trash dirs are ours to write
visible   : which trash dirs exist, for list, restore and doctor
dirsizes  : the spec's directorysizes cache
orphans   : the sweep of info files left without their item
realdelete: the fd-relative real delete of exempt targets and purge

May import: report (markers), the leaves of core/.
"""
