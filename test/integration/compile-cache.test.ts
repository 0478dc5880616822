/**
 * The module compile cache reaches the worker threads (the matching threads start with the job,
 * so their start is what it saves): enableModuleCompileCache must hand its folder to threads,
 * which read NODE_COMPILE_CACHE when they start, and NODE_DISABLE_COMPILE_CACHE must turn it off.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const MODULE = new URL('../../src/start/compile-cache.ts', import.meta.url).href;

/** A process that turns the cache on, then starts a thread that compiles a module and reports. */
const SCRIPT = `
import { enableModuleCompileCache } from ${JSON.stringify(MODULE)};
import { Worker } from 'node:worker_threads';
enableModuleCompileCache();
const code = "import { parentPort } from 'node:worker_threads'; const f = (x) => x * 2; parentPort.postMessage(process.env.NODE_COMPILE_CACHE ?? 'none:' + f(1));";
const worker = new Worker(new URL('data:text/javascript,' + encodeURIComponent(code)));
worker.once('message', (seen) => { console.log(seen); worker.terminate(); });
`;

async function threadSees(env: Record<string, string>): Promise<string> {
  const inherited = { ...process.env };
  delete inherited['NODE_COMPILE_CACHE'];
  delete inherited['NODE_DISABLE_COMPILE_CACHE'];
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', SCRIPT], {
    env: { ...inherited, ...env },
  });
  return stdout.trim();
}

test('the worker threads of a process with the cache on are told its folder', async () => {
  const home = await mkdtemp(join(tmpdir(), 'listmatch-cc-'));
  try {
    // TMPDIR moves os.tmpdir(), where enableCompileCache puts the cache by default.
    const seen = await threadSees({ TMPDIR: home });
    assert.equal(seen, join(home, 'node-compile-cache'));
    assert.ok((await readdir(home)).includes('node-compile-cache'), 'the cache folder was created');
  } finally {
    await rm(home, { recursive: true, force: true });
  }
});

test('NODE_DISABLE_COMPILE_CACHE=1 leaves the cache off, for the threads too', async () => {
  assert.equal(await threadSees({ NODE_DISABLE_COMPILE_CACHE: '1' }), 'none:2');
});
