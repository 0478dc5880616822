#!/usr/bin/env node
// The `listmatch` command. The sources are TypeScript run by Node's type stripping (Node >= 22.18
// strips types by default; 22.12-22.17 need the flag, so re-run with it there).
import { spawnSync } from 'node:child_process';
import { enableCompileCache } from 'node:module';

if (process.features.typescript) {
  // On before the first TypeScript module loads, so that the cache covers main.ts too (the CLI's
  // main.ts turns it on as well, for `node src/cli/main.ts`).
  enableCompileCache();
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
