import { join } from 'node:path';
import { ROOT } from '../lib/processes.ts';

/** Where `--cpu-prof` runs leave their profiles (git-ignored with the rest of bench/out). */
export const PROFILE_DIR = join(ROOT, 'bench', 'out', 'profiles');

/** Default repetitions of the single-shot benchmarks (upload, import, pipeline); the median is reported. */
export const DEFAULT_RUNS = 3;

export interface BenchOptions {
  cpuProf: boolean;
  /** How many times upload, import and pipeline repeat their measured step. */
  runs: number;
  /** Node flags for a child process of benchmark `bench` in `role` (e.g. server, cli). */
  profileArgs(bench: string, role: string): string[];
}

export function benchOptions(cpuProf: boolean, runs = DEFAULT_RUNS): BenchOptions {
  return {
    cpuProf,
    runs,
    profileArgs: (bench, role) =>
      cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${join(PROFILE_DIR, `${bench}-${role}`)}`] : [],
  };
}

/** The median (the lower middle one for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted[Math.floor((sorted.length - 1) / 2)];
  if (middle === undefined) throw new Error('median of nothing');
  return middle;
}
