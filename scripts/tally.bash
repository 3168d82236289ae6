# SPDX-License-Identifier: MIT
# bash completion for tally (installed as
# $(PREFIX)/share/bash-completion/completions/tally).  The words come from
# the tally being completed, `tally __complete CMD PREV CUR`, which reads the
# tables the commands parse with (src/cli/cli_complete.c): commands, each
# command's options, --metric, --sort, --format and --view values, so this
# script never lists an option, a metric or a format of its own.

_tally()
{
	local cur prev cmd words
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	cmd=
	[ "$COMP_CWORD" -ge 2 ] && cmd=${COMP_WORDS[1]}
	# an option's value after '=' (--gprof=timed): bash splits the word at
	# '=' unless COMP_WORDBREAKS lacks it; either way tally is asked with
	# PREV "--gprof=" and the value's start as CUR
	local keep=
	if [ "$cur" = "=" ]; then
		prev="$prev="; cur=
	elif [ "$prev" = "=" ] && [ "$COMP_CWORD" -ge 2 ]; then
		prev="${COMP_WORDS[COMP_CWORD-2]}="
	elif [ "${cur#--*=}" != "$cur" ]; then
		keep=${cur%%=*}=; prev=$keep; cur=${cur#*=}
	fi
	words=$("${COMP_WORDS[0]}" __complete "$cmd" "$prev" "$cur" 2>/dev/null) || return
	case "$words" in
	@files) COMPREPLY=($(compgen -f -- "$cur")) ;;
	@dirs) COMPREPLY=($(compgen -d -- "$cur")) ;;
	@commands) COMPREPLY=($(compgen -c -- "$cur")) ;;
	@none) COMPREPLY=() ;;
	*) COMPREPLY=($(compgen -P "$keep" -W "$words" -- "$cur")) ;;
	esac
}
complete -F _tally tally
