import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (the service and the CLI run from here). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const HOST = '127.0.0.1';

/** Progress goes to stderr: stdout carries only the Markdown report. */
export const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

// ---------------------------------------------------------------------------------------------
// Cleanup of what a run leaves behind, also on Ctrl-C or a crash.

const liveChildren = new Set<ChildProcess>();
const liveDirs = new Set<string>();

process.once('exit', () => {
  for (const child of liveChildren) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping children and removing temporary directories`);
    for (const child of liveChildren) child.kill('SIGKILL');
    void Promise.allSettled([...liveDirs].map((dir) => rm(dir, { recursive: true, force: true }))).then(() =>
      process.exit(130),
    );
  });
}

/** A fresh directory under os.tmpdir(); `remove()` deletes it (and is idempotent). */
export async function tempDir(label: string): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(os.tmpdir(), `listmatch-bench-${label}-`));
  liveDirs.add(path);
  return {
    path,
    remove: async () => {
      await rm(path, { recursive: true, force: true });
      liveDirs.delete(path);
    },
  };
}

/** A port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, HOST);
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('could not get a free port');
  return address.port;
}

/** Keeps the last `limit` characters written to a stream (for error messages). */
function tail(limit = 16_384) {
  let text = '';
  return {
    add(chunk: Buffer | string) {
      text = (text + chunk.toString()).slice(-limit);
    },
    get text() {
      return text;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// CLI runs

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Wall time from spawn to exit, as an operator would see it. */
  ms: number;
}

/**
 * Runs `node [nodeArgs] bin/listmatch.js args…` with DATA_DIR set; kills it (SIGKILL) after
 * `timeoutMs`. Rejects on a non-zero exit unless `allowFailure`.
 */
export async function runCli(
  args: string[],
  options: {
    dataDir: string;
    timeoutMs: number;
    nodeArgs?: string[];
    allowFailure?: boolean;
    /** More environment (DATABASE_URL, S3_* for a scaled-out service). */
    env?: Record<string, string>;
    /** A command that runs node (e.g. /usr/bin/time -f … to measure its peak memory). */
    wrapper?: string[];
  },
): Promise<CliRun> {
  const started = performance.now();
  const command = [
    ...(options.wrapper ?? []),
    process.execPath,
    ...(options.nodeArgs ?? []),
    'bin/listmatch.js',
    ...args,
  ];
  const child = spawn(command[0]!, command.slice(1), {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: options.dataDir, LOG_LEVEL: 'warn', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  liveChildren.add(child);
  const stdout: string[] = [];
  const stderr = tail();
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.add(chunk));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, options.timeoutMs);
  try {
    const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
    const run = {
      code,
      signal,
      stdout: stdout.join(''),
      stderr: stderr.text,
      ms: performance.now() - started,
    };
    if (timedOut) throw new Error(`listmatch ${args[0]} timed out after ${options.timeoutMs / 1000} s`);
    if (code !== 0 && options.allowFailure !== true) {
      throw new Error(`listmatch ${args.join(' ')} exited with ${code ?? signal}: ${run.stderr.trim()}`);
    }
    return run;
  } finally {
    clearTimeout(timer);
    liveChildren.delete(child);
  }
}

/** `listmatch keys create --name bench --json` in DATA_DIR: the new API key. */
export async function createApiKey(dataDir: string, env?: Record<string, string>): Promise<string> {
  return (await createApiKeyWithId(dataDir, env)).key;
}

/** A new key and its id (a DATA_DIR kept between runs holds several keys named `bench`). */
export async function createApiKeyWithId(
  dataDir: string,
  env?: Record<string, string>,
): Promise<{ key: string; id: string }> {
  const run = await runCli(['keys', 'create', '--name', 'bench', '--json'], {
    dataDir,
    timeoutMs: 30_000,
    ...(env === undefined ? {} : { env }),
  });
  const { key, id } = JSON.parse(run.stdout) as { key?: unknown; id?: unknown };
  if (typeof key !== 'string' || typeof id !== 'string')
    throw new Error(`keys create printed no key and id: ${run.stdout}`);
  return { key, id };
}

// ---------------------------------------------------------------------------------------------
// The service as a separate process

export interface ServiceProcess {
  url: string;
  pid: number;
  /** Stops the service (SIGTERM, then SIGKILL after 15 s). */
  stop(): Promise<void>;
  /** Kills the service at once (SIGKILL: a crash, nothing handed back) and waits for its exit. */
  kill(): Promise<void>;
  /** The last output of the service, for error messages. */
  output(): string;
}

/**
 * Starts `node src/start/main.ts` with ROLES=api on a free port of 127.0.0.1, the rate limits
 * raised so that load is not answered with 429, and waits for /healthz.
 */
export async function startService(options: {
  dataDir: string;
  env?: Record<string, string>;
  nodeArgs?: string[];
}): Promise<ServiceProcess> {
  const port = await freePort();
  const url = `http://${HOST}:${port}`;
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), 'src/start/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST,
      PUBLIC_URL: url,
      DATA_DIR: options.dataDir,
      ROLES: 'api',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_POLL_SECONDS: '0',
      RATE_LIMIT_REGISTER_PER_MINUTE: '100000000',
      SHUTDOWN_GRACE_SECONDS: '2',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  liveChildren.add(child);
  const output = tail();
  child.stdout.on('data', (chunk: Buffer) => output.add(chunk));
  child.stderr.on('data', (chunk: Buffer) => output.add(chunk));
  let exitCode: number | null | undefined;
  // 'error' (e.g. spawn failure) rejects once(): treat it as an exit without a code.
  const exited = once(child, 'exit').then(
    ([code]) => code as number | null,
    () => null,
  );
  void exited.then((code) => {
    exitCode = code;
    liveChildren.delete(child);
  });

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };

  const deadline = Date.now() + 30_000;
  while (true) {
    if (exitCode !== undefined) {
      throw new Error(
        `the service exited with ${exitCode} before it was healthy: ${errorLine(output.text)}\n${output.text.trim()}`,
      );
    }
    try {
      const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) });
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(
        `the service was not healthy within 30 s: ${errorLine(output.text)}\n${output.text.trim()}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (child.pid === undefined) throw new Error('the service has no pid');
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    await exited;
  };
  return { url, pid: child.pid, stop, kill, output: () => output.text };
}

/** The most telling line of a crash output: the last `…Error: …` line, else the last line. */
function errorLine(text: string): string {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  return lines.findLast((line) => /^[A-Za-z]*Error\b/.test(line)) ?? lines.at(-1) ?? '(no output)';
}

/** GET with the API key; the parsed JSON body, or an error naming status and body. */
export async function getJson(
  url: string,
  key: string,
  timeoutMs = 10_000,
): Promise<{ url?: string; error?: string | null; status?: string }> {
  const response = await fetch(url, {
    headers: { 'x-api-key': key },
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}: ${text}`);
  return JSON.parse(text) as { url?: string; error?: string | null; status?: string };
}

// ---------------------------------------------------------------------------------------------
// Resident memory of another process

/** VmRSS (or another field such as VmHWM) of `pid` in bytes, from /proc; null where there is no /proc. */
export function procStatusBytes(pid: number, field = 'VmRSS'): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match?.[1] === undefined ? null : Number(match[1]) * 1024;
  } catch {
    return null;
  }
}

/**
 * The fields of a /proc stat line after its parenthesized command name (which may hold spaces):
 * utime and stime, in 10 ms clock ticks, are [11] and [12] (the line's fields 14 and 15).
 */
const statFields = (stat: string) => stat.slice(stat.lastIndexOf(')') + 2).split(' ');

/** A /proc stat line's command name and its CPU time so far (user + system, ms). */
function statNameAndCpuMs(stat: string): { name: string; ms: number } {
  const fields = statFields(stat);
  return {
    name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
    ms: (Number(fields[11]) + Number(fields[12])) * 10,
  };
}

/**
 * User and system CPU time of `pid` (all its threads) in ms, from /proc/<pid>/stat (clock ticks,
 * 100 per second on Linux); null without /proc.
 */
export function procCpuMs(pid: number): { user: number; system: number } | null {
  try {
    const fields = statFields(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
  } catch {
    return null;
  }
}

/**
 * CPU time (user + system, ms) of `pid`'s threads so far, summed by thread name
 * (/proc/<pid>/task/<tid>/stat; Node names its threads: MainThread, WorkerThread, V8Worker, …); a
 * thread that ended between two readings drops out of the later one. Null without /proc.
 */
export function threadCpuMs(pid: number): Map<string, number> | null {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return null;
  }
  const byName = new Map<string, number>();
  for (const task of tasks) {
    try {
      const { name, ms } = statNameAndCpuMs(readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8'));
      byName.set(name, (byName.get(name) ?? 0) + ms);
    } catch {
      // The thread ended while the folder was read.
    }
  }
  return byName;
}

/**
 * CPU time (user + system, ms) so far of the processes whose name starts with `prefix`, kernel
 * threads included (kdamond: the kernel's memory access monitor, which some VMs run and which
 * takes a core for milliseconds at a time beside a large process); null without /proc.
 */
export function namedProcessesCpuMs(prefix: string): number | null {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  let ms = 0;
  for (const pid of pids) {
    try {
      const stat = statNameAndCpuMs(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      if (stat.name.startsWith(prefix)) ms += stat.ms;
    } catch {
      // The process ended while /proc was read.
    }
  }
  return ms;
}

/** Samples VmRSS of `pid` every `intervalMs` until stopped. */
export function sampleRss(pid: number, intervalMs = 100) {
  const samples: { t: number; bytes: number }[] = [];
  const started = performance.now();
  const take = () => {
    const bytes = procStatusBytes(pid);
    if (bytes !== null) samples.push({ t: Math.round(performance.now() - started), bytes });
  };
  take();
  const timer = setInterval(take, intervalMs);
  return {
    samples,
    stop() {
      clearInterval(timer);
      take();
      return samples;
    },
  };
}

/**
 * Registers a list-matching job, uploads `body` to its URL, polls every `pollMs` until the result
 * is ready and downloads it; throws on a failed job, a refused upload or after `timeoutMs`.
 */
export async function matchListOnce(
  base: string,
  key: string,
  filename: string,
  body: Buffer,
  options: { timeoutMs: number; pollMs?: number },
): Promise<Buffer> {
  const registered = await getJson(`${base}/service/smartmatch?filename=${filename}&format=csv`, key);
  const upload = await fetch(registered.url ?? '', { method: 'PUT', body });
  await upload.arrayBuffer();
  if (upload.status !== 200) throw new Error(`upload answered ${upload.status}`);
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const answer = await getJson(`${base}/service/smartmatch/poll?filename=${filename}`, key);
    if (answer.error) throw new Error(`${filename} failed: ${answer.error}`);
    if (answer.url) return Buffer.from(await (await fetch(answer.url)).arrayBuffer());
    if (Date.now() > deadline) throw new Error(`${filename} did not finish`);
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 100));
  }
}
