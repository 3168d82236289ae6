# SPDX-License-Identifier: MIT
# bash completion for tally (installed as
# $(PREFIX)/share/bash-completion/completions/tally): commands, their
# options, --format and --metric values, experiment directories.

_tally_metrics="cpu heap.bytes heap.count heap.leak sync.wait sync.count sync.other io.bytes io.time io.count mpi.time mpi.count mpi.bytes.sent mpi.bytes.recv samples"

_tally()
{
	local cur prev cmd opts
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "record report export annotate gprof check diff html --help --version" -- "$cur"))
		return
	fi
	cmd=${COMP_WORDS[1]}
	local filters="--thread --time --process --rank --view --object --hide-object --symbol --no-args"
	case "$prev" in
	--sort)
		COMPREPLY=($(compgen -W "excl incl name object $_tally_metrics" -- "$cur"))
		return ;;
	--columns)
		COMPREPLY=($(compgen -W "excl,incl,name,object excl,incl,name,object,file name,excl" -- "$cur"))
		return ;;
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
	record) opts="-o -F -H -s -i -m --follow= --frames --pid --duration --limit --help" ;;
	report) opts="--functions --callers --tree --inverted --no-fold --lines --pcs --source-path --threads
		--objects --gprof --leaks --by-file --processes --ranks --messages --metric --format --limit --sort
		--columns --percent --samples --quiet --name-width --human --threshold --show-collector $filters --help" ;;
	export) opts="--format --metric -o --output $filters --help" ;;
	annotate) opts="--disasm --source --source-path --commentary --hot --context --metric --format
		$filters --help" ;;
	diff) opts="--absolute --normalised --metric --format --limit --human $filters --help" ;;
	html) opts="-o --output --diff --absolute --normalised --title $filters --help" ;;
	gprof|check) opts="--help" ;;
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
