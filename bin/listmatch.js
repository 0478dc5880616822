#!/usr/bin/env node
// The `listmatch` command. The sources are TypeScript run by Node's type stripping (Node >= 22.18
// strips types by default; 22.12-22.17 need the flag, so re-run with it there).
import { spawnSync } from 'node:child_process';

if (process.features.typescript) {
  await import('../src/cli/main.ts');
} else {
  const result = spawnSync(
    process.execPath,
    [
      '--experimental-strip-types',
      '--disable-warning=ExperimentalWarning',
      new URL('../src/cli/main.ts', import.meta.url).pathname,
      ...process.argv.slice(2),
    ],
    { stdio: 'inherit' },
  );
  process.exit(result.status ?? 1);
}
