// Where the CPU went, from a V8 `.cpuprofile` (node --cpu-prof): self time grouped by package or
// by source file, and the heaviest functions, as text for docs/benchmarks.md.
//
//   node --import tsx bench/profile-summary.ts <file.cpuprofile> [--top 30] [--by package|file|function]
//
// Self time is the time a function ran its own code; "total" adds what it called. Idle time
// ("(idle)") is left out of the shares, and "(garbage collector)" and "(program)" are kept as
// they are: they are real CPU.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** The group a frame's self time is counted in: a package under node_modules, node's own code, or a source file. */
export function groupOf(frame: CallFrame, by: 'package' | 'file' | 'function'): string {
  const url = frame.url;
  if (!url) return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  if (url.startsWith('node:')) return by === 'function' ? `${frame.functionName || '(anonymous)'} ${url}` : url;
  const modules = url.lastIndexOf('/node_modules/');
  const file =
    modules >= 0 ? url.slice(modules + '/node_modules/'.length) : url.replace(/^.*\/(packages|examples)\//, '$1/');
  if (by === 'package' && modules >= 0) {
    const parts = file.split('/');
    return (parts[0] ?? '').startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] ?? file);
  }
  if (by === 'package') return file.replace(/^packages\/([^/]+)\/.*$/, 'snapgate $1');
  if (by === 'file') return file;
  return `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
}

export function summarize(profile: CpuProfile, by: 'package' | 'file' | 'function'): Array<[string, number]> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i] as number);
    if (!node) continue;
    const key = groupOf(node.callFrame, by);
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  return [...self.entries()].sort((a, b) => b[1] - a[1]);
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: 'string', default: '30' }, by: { type: 'string', default: 'package' } },
  });
  const file = positionals[0];
  if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [--top N] [--by package|file|function]');
  const by = values.by as 'package' | 'file' | 'function';
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const rows = summarize(profile, by);
  const busy = rows.filter(([k]) => k !== '(idle)').reduce((s, [, us]) => s + us, 0);
  const idle = rows.find(([k]) => k === '(idle)')?.[1] ?? 0;
  console.log(
    `${file}: ${(busy / 1000).toFixed(0)} ms on CPU, ${(idle / 1000).toFixed(0)} ms idle; self time by ${by}`,
  );
  for (const [key, us] of rows.filter(([k]) => k !== '(idle)').slice(0, Number(values.top))) {
    console.log(`${((100 * us) / busy).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(6)} ms  ${key}`);
  }
}

main();
