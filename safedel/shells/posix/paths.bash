# safedel: functions named after absolute tool paths, so `/bin/rm x` and `/usr/bin/git x`
# reach the launchers too (PATH alone only catches a bare `rm`). bash (outside posix
# mode) and zsh accept these names; dash and busybox sh would fail to parse this file,
# so only env.sh and the bash/zsh bootstraps source it, after checking the shell.
function /bin/rm { @SAFEDEL_HOME@/bin/rm "$@"; }
function /usr/bin/rm { @SAFEDEL_HOME@/bin/rm "$@"; }
function /bin/rmdir { @SAFEDEL_HOME@/bin/rmdir "$@"; }
function /usr/bin/rmdir { @SAFEDEL_HOME@/bin/rmdir "$@"; }
function /bin/unlink { @SAFEDEL_HOME@/bin/unlink "$@"; }
function /usr/bin/unlink { @SAFEDEL_HOME@/bin/unlink "$@"; }
function /bin/find { @SAFEDEL_HOME@/bin/find "$@"; }
function /usr/bin/find { @SAFEDEL_HOME@/bin/find "$@"; }
function /bin/git { @SAFEDEL_HOME@/bin/git "$@"; }
function /usr/bin/git { @SAFEDEL_HOME@/bin/git "$@"; }
