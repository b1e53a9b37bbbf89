// `snapgate completion bash`: a static bash completion script, generated from the command tree.
import type { Command } from 'commander';

interface Node {
  path: string;
  words: string[];
}

/** Every command path (`''` for the top, `merchant`, `merchant create`, …) with the words that may follow it. */
function nodesOf(cmd: Command, path: string, inherited: string[]): Node[] {
  const flags = [...cmd.options.flatMap((o) => [o.long, o.short]).filter((f): f is string => !!f)];
  const subcommands = cmd.commands.map((c) => c.name());
  if (subcommands.length > 0 && !subcommands.includes('help')) subcommands.push('help');
  const words = [...subcommands, ...flags, ...inherited, '--help', '-h'];
  const nodes: Node[] = [{ path, words: [...new Set(words)] }];
  for (const sub of cmd.commands) nodes.push(...nodesOf(sub, path ? `${path} ${sub.name()}` : sub.name(), inherited));
  return nodes;
}

export function bashCompletion(program: Command): string {
  const globals = program.options.map((o) => o.long).filter((f): f is string => !!f && f !== '--version');
  const [top, ...rest] = nodesOf(program, '', []);
  const nodes = [top as Node, ...rest.map((n) => ({ path: n.path, words: [...new Set([...n.words, ...globals])] }))];
  const name = program.name();
  const fn = `_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
  const cases = nodes.map((n) => `    '${n.path}') echo '${n.words.join(' ')}' ;;`).join('\n');
  return `# bash completion for ${name}
# Load it now:      source <(${name} completion bash)
# Or for good:      ${name} completion bash > ~/.local/share/bash-completion/completions/${name}

${fn}_words() {
  case "$1" in
${cases}
  esac
}

${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" next w i
  # The command path: the words so far that name a command (flag values name none).
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    next="\${path:+$path }$w"
    if [[ -n "$(${fn}_words "$next")" ]]; then path="$next"; fi
  done
  COMPREPLY=($(compgen -W "$(${fn}_words "$path")" -- "$cur"))
}

complete -o default -F ${fn} ${name}
`;
}
