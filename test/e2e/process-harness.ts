import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** End-to-end harness: the service and the CLI as separate processes; nothing from src/ is imported. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'bin', 'listmatch.js');
const SERVER = join(ROOT, 'src', 'start', 'main.ts');

export async function tempDir(): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'listmatch-e2e-'));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs `listmatch …` and returns stdout; throws with stderr on a non-zero exit. */
export function cli(args: string[], env: Record<string, string>): string {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (result.status !== 0)
    throw new Error(`listmatch ${args[0]} ${args[1] ?? ''} failed (${result.status}): ${result.stderr}`);
  return result.stdout;
}

export interface ServerProcess {
  base: string;
  process: ChildProcess;
  stderr(): string;
  /** SIGTERM and wait for exit. */
  stop(): Promise<void>;
  /** SIGKILL: no chance to clean up. */
  kill(): Promise<void>;
}

export async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const port = env['PORT'] ? Number(env['PORT']) : await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [SERVER], {
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: base,
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr!.on('data', (chunk) => {
    errors += chunk;
  });
  child.stdout!.resume();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${errors}`);
    try {
      if ((await fetch(`${base}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server did not start: ${errors}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    process: child,
    stderr: () => errors,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
    async kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

export async function json(
  url: string,
  key?: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, { headers: key ? { 'x-api-key': key } : {} });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Polls until the job has a url or an error (the server must run with RATE_LIMIT_POLL_SECONDS=0). */
export async function pollUntilDone(base: string, key: string, filename: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await json(`${base}/service/smartmatch/poll?filename=${filename}`, key);
    if (body['url'] || body['error']) return body;
    if (Date.now() > deadline) throw new Error(`${filename} not done: ${JSON.stringify(body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
