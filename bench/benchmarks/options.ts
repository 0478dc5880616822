import { join } from 'node:path';
import { ROOT } from '../lib/processes.ts';

/** Where `--cpu-prof` runs leave their profiles (git-ignored with the rest of bench/out). */
export const PROFILE_DIR = join(ROOT, 'bench', 'out', 'profiles');

export interface BenchOptions {
  cpuProf: boolean;
  /** Node flags for a child process of benchmark `bench` in `role` (e.g. server, import, match). */
  profileArgs(bench: string, role: string): string[];
}

export function benchOptions(cpuProf: boolean): BenchOptions {
  return {
    cpuProf,
    profileArgs: (bench, role) =>
      cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${join(PROFILE_DIR, `${bench}-${role}`)}`] : [],
  };
}
