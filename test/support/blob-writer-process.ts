import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

const FS_BLOB_STORE = new URL('../../src/adapters/blobs/fs-blob-store.ts', import.meta.url).href;

/**
 * Another process that opens a blob writer under `root` and writes to it, then stays alive with
 * the blob uncommitted: the temporary file of a write in progress. Kill it (SIGKILL) for the
 * leftovers of a crash.
 */
export async function startBlobWriter(root: string, key: string): Promise<ChildProcess> {
  const script = `
    import { FsBlobStore } from ${JSON.stringify(FS_BLOB_STORE)};
    const writer = await new FsBlobStore(${JSON.stringify(root)}).openWriter(${JSON.stringify(key)});
    writer.stream.write('voter_id,first_name\\n1,ALICE\\n', () => process.stdout.write('written\\n'));
    setInterval(() => {}, 60_000);
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await Promise.race([
    once(child.stdout!, 'data'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`the writer process exited (${code}) before writing`);
    }),
  ])) as [Buffer];
  if (!line.toString().includes('written')) throw new Error(`unexpected output: ${line.toString()}`);
  return child;
}

/** SIGKILL, as a crash: no handler runs, nothing is cleaned up. */
export async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}
