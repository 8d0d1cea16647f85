# safedel: read by non-interactive bash (BASH_ENV) and interactive sh (ENV).
# PATH already routes rm, rmdir, unlink and find to safedel's launchers. This file adds
# what PATH cannot reach: commands named by absolute path (/bin/rm) in bash and zsh.
# It must stay quiet and harmless under `set -eu`, in dash, busybox sh, bash and zsh.

if [ -n "${BASH_VERSION-}" ] && [ -n "${SAFEDEL_USER_BASH_ENV-}" ]; then
  . "${SAFEDEL_USER_BASH_ENV}"
elif [ -z "${BASH_VERSION-}" ] && [ -n "${SAFEDEL_USER_ENV-}" ]; then
  . "${SAFEDEL_USER_ENV}"
fi

__safedel_home=@SAFEDEL_HOME@
# bash outside posix mode and zsh accept function names with a slash; dash and
# busybox sh do not, so the definitions are only parsed (by eval) where they work.
if { [ -n "${BASH_VERSION-}" ] && ! \builtin shopt -qo posix; } || [ -n "${ZSH_VERSION-}" ]; then
  for __safedel_tool in rm rmdir unlink find; do
    for __safedel_dir in /bin /usr/bin; do
      \builtin eval "function ${__safedel_dir}/${__safedel_tool} { \"\${__safedel_home}/bin/${__safedel_tool}\" \"\$@\"; }"
    done
  done
  \builtin unset __safedel_tool __safedel_dir
fi
