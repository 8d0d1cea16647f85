"""The GNU front ends: rm, rmdir, unlink and find -delete, as coreutils and findutils
behave, with the trash in place of the removal.

quoting, ask, options: GNU's quoting of names, its questions, its getopt_long
rm, rmprompt, rmwalk, rmwalkdir, rmdeep, rmtrash: rm's plan, walk and carrying it out
rmdir      : rmdir and unlink
find, findat, findsync: find -delete (findsync asks the net's stdlib half)
findexec   : find -exec /bin/rm (the real tool by a path) runs the launcher
launch     : the shims/bin launchers' body; bundle writes their start-up bundle

May import: deletion and everything below it; never pyshim or git.
"""
