import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT } from './processes.ts';

/**
 * Where the time of a V8 `.cpuprofile` (from `node --cpu-prof`) goes: self time and total
 * (inclusive) time per function. Also a script:
 *   node bench/lib/cpuprofile-summary.ts FILE.cpuprofile [top]
 */

interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
  /** Samples per source line of this node's own code (self time), when V8 recorded them. */
  positionTicks?: { line: number; ticks: number }[];
}

interface CpuProfile {
  nodes: CpuProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface FunctionTime {
  name: string;
  /** file:line relative to the repository, or node:… / (native) */
  location: string;
  selfMs: number;
  totalMs: number;
}

export interface LineTime {
  name: string;
  /** file:line of the hot line itself. */
  location: string;
  selfMs: number;
}

export interface ProfileSummary {
  totalMs: number;
  functions: FunctionTime[];
  /** Self time per source line (from positionTicks), to see where inside a function time goes. */
  lines: LineTime[];
}

function file(url: string): string {
  if (!url.startsWith('file://')) return url;
  const path = relative(ROOT, fileURLToPath(url));
  return path.startsWith('node_modules') ? path.replace(/^.*node_modules\//, 'npm:') : path;
}

function location(frame: CpuProfileNode['callFrame']): string {
  if (frame.url === '') return '(native)';
  return `${file(frame.url)}:${frame.lineNumber + 1}`;
}

export function summarizeProfile(path: string): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map<number, CpuProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const keyOf = new Map<number, string>();
  const functions = new Map<string, FunctionTime>();
  for (const node of profile.nodes) {
    const frame = node.callFrame;
    const name = frame.functionName === '' ? '(anonymous)' : frame.functionName;
    const where = location(frame);
    const key = `${name}\t${where}`;
    keyOf.set(node.id, key);
    if (!functions.has(key)) functions.set(key, { name, location: where, selfMs: 0, totalMs: 0 });
  }
  let totalUs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const us = profile.timeDeltas[i] ?? 0;
    totalUs += us;
    let id: number | undefined = profile.samples[i]!;
    functions.get(keyOf.get(id)!)!.selfMs += us / 1000;
    const seen = new Set<string>();
    while (id !== undefined) {
      const key = keyOf.get(id)!;
      if (!seen.has(key)) {
        seen.add(key);
        functions.get(key)!.totalMs += us / 1000;
      }
      id = parent.get(id);
    }
  }
  // positionTicks count samples; spread the node's self time over its lines in proportion.
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const lines = new Map<string, LineTime>();
  for (const node of profile.nodes) {
    const ticks = node.positionTicks ?? [];
    const all = ticks.reduce((sum, t) => sum + t.ticks, 0);
    const us = selfUs.get(node.id) ?? 0;
    if (all === 0 || us === 0 || node.callFrame.url === '') continue;
    const name = node.callFrame.functionName === '' ? '(anonymous)' : node.callFrame.functionName;
    for (const { line, ticks: n } of ticks) {
      const where = `${file(node.callFrame.url)}:${line}`;
      const entry = lines.get(where) ?? { name, location: where, selfMs: 0 };
      entry.selfMs += ((us / 1000) * n) / all;
      lines.set(where, entry);
    }
  }
  return { totalMs: totalUs / 1000, functions: [...functions.values()], lines: [...lines.values()] };
}

/** A plain-text report of the `top` functions by self time and by total time. */
export function formatProfile(summary: ProfileSummary, top = 25): string {
  const pct = (ms: number) => `${((ms / summary.totalMs) * 100).toFixed(1).padStart(5)}%`;
  const line = (f: FunctionTime, ms: number) =>
    `  ${ms.toFixed(0).padStart(7)} ms ${pct(ms)}  ${f.name}  ${f.location}`;
  const skip = new Set(['(root)', '(program)', '(idle)', '(garbage collector)']);
  const bySelf = [...summary.functions].sort((a, b) => b.selfMs - a.selfMs).slice(0, top);
  const byTotal = [...summary.functions]
    .filter((f) => !skip.has(f.name))
    .sort((a, b) => b.totalMs - a.totalMs)
    .slice(0, top);
  return [
    `profile: ${summary.totalMs.toFixed(0)} ms sampled`,
    'self time:',
    ...bySelf.map((f) => line(f, f.selfMs)),
    'total time (inclusive):',
    ...byTotal.map((f) => line(f, f.totalMs)),
    'hot lines (self time):',
    ...[...summary.lines]
      .sort((a, b) => b.selfMs - a.selfMs)
      .slice(0, top)
      .map((l) => `  ${l.selfMs.toFixed(0).padStart(7)} ms ${pct(l.selfMs)}  ${l.location}  (${l.name})`),
  ].join('\n');
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [file, top] = process.argv.slice(2);
  if (file === undefined) {
    console.error('usage: node bench/lib/cpuprofile-summary.ts FILE.cpuprofile [top]');
    process.exit(2);
  }
  console.log(formatProfile(summarizeProfile(file), top === undefined ? 25 : Number(top)));
}
