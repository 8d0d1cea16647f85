# safedel: run the user's own .zlogin from their ZDOTDIR, then keep ours for child shells.
__safedel_zdotdir=$ZDOTDIR
ZDOTDIR=${SAFEDEL_USER_ZDOTDIR:-$HOME}
[[ -r $ZDOTDIR/.zlogin ]] && builtin source "$ZDOTDIR/.zlogin"
ZDOTDIR=$__safedel_zdotdir
unset __safedel_zdotdir
