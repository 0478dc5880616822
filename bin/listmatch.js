#!/usr/bin/env node
// The `listmatch` command. The sources are TypeScript run by Node's type stripping (Node >= 22.18
// strips types by default; 22.12-22.17 need the flag, so re-run with it there).
import { spawnSync } from 'node:child_process';
import { enableCompileCache } from 'node:module';

/**
 * `submit` and `audience` stream a list up and its result down: with V8's default young
 * generation the garbage of that stream alone grows the process by some 45 MB; 2 MB semi-spaces
 * keep it flat at no cost in speed (a 1M-row list: 148 MB RSS instead of 188, uploaded at 300+
 * MB/s either way). What survives the small young generation (a block of rows awaiting the next
 * read) is promoted and, unbounded, the old generation grew to 167-201 MB RSS while `--join` read
 * the list and the result; bounded to 64 MB the run peaked at 133-158 MB, to 32 MB at 131 MB (1M
 * rows; same bytes, same time). What these commands hold at once is a few blocks of rows (a row
 * is at most MAX_ROW_BYTES, 1 MB), far below the bound. The flags must be given at start: the
 * command runs again with them.
 */
const LEAN_YOUNG_GENERATION = '--max-semi-space-size=2';
const BOUNDED_OLD_GENERATION = '--max-old-space-size=32';
const streams = ['submit', 'audience'].includes(process.argv[2] ?? '');

/**
 * Runs node again with `args`: in place of this process where Node can (process.execve, Node
 * 22.15+ / 23.11+, not on Windows), so that the command's memory is its own alone and signals and
 * the exit status are its own; else as a child, waited for, its exit status passed on.
 */
function runAgain(args) {
  if (typeof process.execve === 'function') {
    try {
      process.execve(process.execPath, [process.execPath, ...args]);
    } catch {
      // Not on this platform: a child instead.
    }
  }
  const result = spawnSync(process.execPath, args, { stdio: 'inherit' });
  process.exit(result.status ?? 1);
}

if (streams && !process.execArgv.includes(LEAN_YOUNG_GENERATION)) {
  runAgain([
    ...process.execArgv,
    ...(process.features.typescript
      ? []
      : ['--experimental-strip-types', '--disable-warning=ExperimentalWarning']),
    LEAN_YOUNG_GENERATION,
    BOUNDED_OLD_GENERATION,
    new URL(import.meta.url).pathname,
    ...process.argv.slice(2),
  ]);
} else if (process.features.typescript) {
  // On before the first TypeScript module loads, so that the cache covers main.ts too (the CLI's
  // main.ts turns it on as well, for `node src/cli/main.ts`).
  enableCompileCache();
  await import('../src/cli/main.ts');
} else {
  runAgain([
    '--experimental-strip-types',
    '--disable-warning=ExperimentalWarning',
    new URL('../src/cli/main.ts', import.meta.url).pathname,
    ...process.argv.slice(2),
  ]);
}
