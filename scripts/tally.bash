# SPDX-License-Identifier: MIT
# bash completion for tally (installed as
# $(PREFIX)/share/bash-completion/completions/tally): commands, their
# options, --format and --metric values, experiment directories.

_tally_metrics="cpu heap.bytes heap.count heap.leak sync.wait sync.count sync.other io.bytes io.time io.count"

_tally()
{
	local cur prev cmd opts
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "record report export annotate gprof diff html --help --version" -- "$cur"))
		return
	fi
	cmd=${COMP_WORDS[1]}
	case "$prev" in
	--format)
		case "$cmd" in
		export) COMPREPLY=($(compgen -W "collapsed arcs callgrind pprof speedscope chrome" -- "$cur")) ;;
		*) COMPREPLY=($(compgen -W "text csv json" -- "$cur")) ;;
		esac
		return ;;
	--metric)
		COMPREPLY=($(compgen -W "$_tally_metrics" -- "$cur"))
		return ;;
	-o|--output)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	--follow)
		COMPREPLY=($(compgen -W "all none" -- "$cur"))
		return ;;
	esac
	case "$cmd" in
	record) opts="-o -F -H -s -i --follow= --help" ;;
	report) opts="--functions --callers --tree --threads --objects --gprof --leaks --by-file
		--processes --process --metric --format --limit --sort --threshold --thread --time
		--show-collector --help" ;;
	export) opts="--format --metric -o --output --thread --time --process --help" ;;
	annotate) opts="--disasm --metric --format --thread --time --process --help" ;;
	diff) opts="--absolute --normalised --metric --format --limit --thread --time --process --help" ;;
	html) opts="-o --output --diff --absolute --normalised --title --thread --time --process --help" ;;
	gprof) opts="--help" ;;
	esac
	if [ "${cur#-}" != "$cur" ]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	elif [ "$cmd" = record ]; then
		COMPREPLY=($(compgen -c -- "$cur"))
	else
		COMPREPLY=($(compgen -d -- "$cur"))
	fi
}
complete -F _tally tally
