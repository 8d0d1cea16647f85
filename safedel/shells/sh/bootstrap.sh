# safedel for interactive sh (dash, busybox sh). In the file $ENV names, or ~/.profile:
#   eval "$(safedel bootstrap sh)"
# It exports the shim environment and makes each command line its own turn through a
# prompt hook and a turn file (see posix/turns.sh in the shim home). A hard-coded
# /bin/rm cannot be caught here: these shells refuse function names with a slash.
@ENVIRONMENT@
@SESSION@
SAFEDEL_TURN_FILE=@TURN_FILE@
\command export SAFEDEL_TURN_FILE
. @SAFEDEL_HOME@/posix/turns.sh
