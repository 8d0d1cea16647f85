# safedel: read by non-interactive bash (BASH_ENV) and interactive sh (ENV).
# PATH already routes rm, rmdir, unlink and find to safedel's launchers. This file adds
# what PATH cannot reach: commands named by absolute path (/bin/rm) in bash and zsh.
# It must stay quiet and harmless under `set -eu`, in dash, busybox sh, bash and zsh.

if [ -n "${BASH_VERSION-}" ] && [ -n "${SAFEDEL_USER_BASH_ENV-}" ]; then
  . "${SAFEDEL_USER_BASH_ENV}"
elif [ -z "${BASH_VERSION-}" ] && [ -n "${SAFEDEL_USER_ENV-}" ]; then
  . "${SAFEDEL_USER_ENV}"
fi

# bash outside posix mode and zsh accept function names with a slash; dash and busybox
# sh cannot even parse them, so they live in a file only those two shells source.
if { [ -n "${BASH_VERSION-}" ] && ! \builtin shopt -qo posix; } || [ -n "${ZSH_VERSION-}" ]; then
  . @SAFEDEL_HOME@/posix/paths.bash
fi

# An interactive dash or busybox sh started under the sh bootstrap inherits its turn
# file; rotating it at each of this shell's prompts keeps one command line, one turn.
case $- in
  *i*)
    if [ -z "${BASH_VERSION-}${ZSH_VERSION-}" ] && [ -n "${SAFEDEL_TURN_FILE-}" ]; then
      . @SAFEDEL_HOME@/posix/turns.sh
    fi
    ;;
esac
