import { mkdtemp, rm } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.ts';
import type { Entitlements } from '../../src/domain/keys/key-types.ts';
import { type RunningService, startService } from '../../src/start/server.ts';

export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

export interface TestService {
  base: string;
  dataDir: string;
  running: RunningService;
  /** Creates a key (default profile appends party, with every contact field granted). */
  createKey(options?: { name?: string; entitlements?: Partial<Entitlements> }): Promise<{
    key: string;
    id: string;
    webhookSecret: string;
  }>;
  stop(): Promise<void>;
}

/**
 * The real service (api + worker, embedded backends) on a random loopback port with a fresh
 * DATA_DIR and the small voter fixture imported. `env` overrides configuration.
 */
export async function startTestService(
  env: Record<string, string> = {},
  options: {
    voters?: boolean;
    logStream?: { write(line: string): void };
    /** An existing DATA_DIR to use (removed by stop()); default: a fresh temporary one. */
    dataDir?: string;
  } = {},
): Promise<TestService> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'listmatch-test-')));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: base,
    LOG_LEVEL: 'silent',
    QUEUE_POLL_MS: '20',
    ...env,
  });
  const running = await startService(config, {
    handleSignals: false,
    ...(options.logStream === undefined ? {} : { logStream: options.logStream }),
  });
  if (options.voters !== false) {
    await running.services.voters.importFile(join(FIXTURES, 'voters-small.csv'), { replace: true });
  }
  return {
    base,
    dataDir,
    running,
    async createKey(options = {}) {
      const { key, record, webhookSecret } = await running.services.keys.createKey({
        name: options.name ?? 'test client',
        ...(options.entitlements ? { entitlements: options.entitlements } : {}),
      });
      await running.services.keys.setProfile(record.id, 'default', {
        appendedFields: [{ source: 'party', as: 'party' }],
        contactFields: ['email', 'landline', 'wireless', 'voip'],
      });
      return { key, id: record.id, webhookSecret };
    },
    async stop() {
      await running.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A port that was free a moment ago (the OS picks it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return address.port;
}

/** GET with the API key; returns status, headers and parsed JSON. */
export async function getJson(
  url: string,
  key?: string,
  init: RequestInit = {},
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const headers = new Headers(init.headers);
  if (key !== undefined) headers.set('x-api-key', key);
  const response = await fetch(url, { ...init, headers });
  const text = await response.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`expected JSON from ${url.split('?')[0]}, got ${response.status}: ${text.slice(0, 200)}`);
  }
  return { status: response.status, headers: response.headers, body };
}

/** Registers a list-matching job and returns its upload URL (asserting success). */
export async function register(t: TestService, key: string, query: string): Promise<string> {
  const { status, body } = await getJson(`${t.base}/service/smartmatch?${query}`, key);
  if (status !== 200 || typeof body['url'] !== 'string') {
    throw new Error(`registration failed: ${status} ${JSON.stringify(body)}`);
  }
  return body['url'];
}

/** PUTs a body as the real clients do: no API key, no Content-Type. */
export async function upload(
  url: string,
  body: string | Uint8Array,
): Promise<{ status: number; text: string }> {
  const response = await fetch(url, {
    method: 'PUT',
    body: typeof body === 'string' ? Buffer.from(body) : body,
  });
  return { status: response.status, text: await response.text() };
}

/** Polls (bypassing no limit: the service under test should have RATE_LIMIT_POLL_SECONDS=0) until done. */
export async function waitForResult(
  t: TestService,
  key: string,
  filename: string,
  timeoutMs = 15_000,
): Promise<{ url: string; error: unknown; status: unknown; warnings: unknown }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await getJson(`${t.base}/service/smartmatch/poll?filename=${filename}`, key);
    if (
      (typeof body['url'] === 'string' && body['url'] !== '') ||
      (body['error'] !== null && body['error'] !== '')
    ) {
      return {
        url: body['url'] as string,
        error: body['error'],
        status: body['status'],
        warnings: body['warnings'],
      };
    }
    if (Date.now() > deadline) throw new Error(`job ${filename} did not finish: ${JSON.stringify(body)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits until `check()` holds; fails with `what` after `timeoutMs`. */
export async function until(
  check: () => boolean | Promise<boolean>,
  what = 'condition',
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
