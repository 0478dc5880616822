/**
 * A real OpenSSH SFTP server for integration tests: Debian's `/usr/sbin/sshd` with its own
 * sshd_config on a loopback port, `internal-sftp` only, key-only login of one chrooted system
 * user. Keys, config and the chroot live outside /tmp (sshd refuses keys and chroots under
 * world-writable directories): `.test-state/` of the repository when that is allowed, else
 * `~/.cache/listmatch-test-state/`. Needs root (sshd must chroot); the user is created on first
 * use. Without sshd or root, `startSftpServer` returns the reason instead of a server.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { dirname, join, parse } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from './test-service.ts';

const run = promisify(execFile);
const SSHD = '/usr/sbin/sshd';
export const SFTP_INSTALL_HINT = 'apt-get install -y openssh-server';
/** The chrooted account the service logs in as. */
const USER = 'lmsftp-test';
/** The service account's folder inside the chroot (the chroot itself must stay root-owned). */
const ROOT_IN_CHROOT = '/deliveries';

export interface SftpServer {
  host: string;
  port: number;
  username: string;
  privateKeyFile: string;
  hostKeySha256: string;
  /** SFTP_ROOT as the service account sees it. */
  root: string;
  /** The same folder on this machine's disk, to check what arrived. */
  localRoot: string;
  /** The service's environment for DELIVERY=sftp against this server. */
  env: Record<string, string>;
  running(): boolean;
  /** What sshd wrote to stderr (for failure messages). */
  log(): string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stops the server and removes its keys, config and files. */
  dispose(): Promise<void>;
}

/** Why the SFTP tests cannot run here, or null. */
export function sftpUnavailable(): string | null {
  if (!existsSync(SSHD))
    return `OpenSSH server is not installed at ${SSHD} (install it with: ${SFTP_INSTALL_HINT})`;
  if (process.getuid?.() !== 0) return 'the SFTP test server must run as root (sshd chroots its user)';
  return null;
}

/** Fails under CI=true, else skips with the reason printed; returns true when the caller should stop. */
export function skipWithoutSftp(t: { skip(message?: string): void }): boolean {
  const reason = sftpUnavailable();
  if (reason === null) return false;
  if (process.env['CI'] === 'true')
    throw new Error(`${reason}; CI must have it (.ci/services.sh installs it)`);
  console.log(`skipping the SFTP tests: ${reason}`);
  t.skip(reason);
  return true;
}

export async function startSftpServer(): Promise<SftpServer> {
  const reason = sftpUnavailable();
  if (reason !== null) throw new Error(reason);
  await ensureUser();
  const state = await mkdtemp(join(await stateRoot(), 'sftp-'));
  await chmod(state, 0o755);
  const etc = join(state, 'etc');
  const chroot = join(state, 'chroot');
  const localRoot = join(chroot, ROOT_IN_CHROOT);
  await mkdir(join(etc, 'authorized_keys'), { recursive: true, mode: 0o755 });
  await mkdir(localRoot, { recursive: true, mode: 0o755 });
  // Modes given to mkdir and writeFile are cut by the umask, and a service started in this test
  // process sets 077 (DATA_DIR is private): sshd reads authorized_keys as the user, so set them.
  for (const dir of [etc, join(etc, 'authorized_keys'), chroot, localRoot]) await chmod(dir, 0o755);
  const { stdout: ids } = await run('id', ['-u', USER]);
  const { stdout: gids } = await run('id', ['-g', USER]);
  await chown(localRoot, Number(ids.trim()), Number(gids.trim()));

  const hostKey = join(etc, 'ssh_host_ed25519_key');
  const clientKey = join(state, 'client_ed25519');
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'listmatch test host', '-f', hostKey]);
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'listmatch test service', '-f', clientKey]);
  await writeFile(join(etc, 'authorized_keys', USER), await readFile(`${clientKey}.pub`), { mode: 0o644 });
  await chmod(join(etc, 'authorized_keys', USER), 0o644);
  const { stdout: fingerprint } = await run('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${hostKey}.pub`]);
  const hostKeySha256 = fingerprint.split(' ')[1]!;

  const port = await freePort();
  const config = join(etc, 'sshd_config');
  await writeFile(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `PidFile ${join(state, 'sshd.pid')}`,
      `AuthorizedKeysFile ${join(etc, 'authorized_keys')}/%u`,
      'PubkeyAuthentication yes',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin no',
      'UsePAM no',
      `AllowUsers ${USER}`,
      'Subsystem sftp internal-sftp',
      'ForceCommand internal-sftp',
      `ChrootDirectory ${chroot}`,
      'AllowTcpForwarding no',
      'AllowAgentForwarding no',
      'X11Forwarding no',
      'PermitTTY no',
      'LogLevel VERBOSE',
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  // sshd's privilege separation directory; the system's sshd service would create it.
  await mkdir('/run/sshd', { recursive: true, mode: 0o755 });

  let child: ChildProcess | null = null;
  let log = '';
  const server: SftpServer = {
    host: '127.0.0.1',
    port,
    username: USER,
    privateKeyFile: clientKey,
    hostKeySha256,
    root: ROOT_IN_CHROOT,
    localRoot,
    env: {
      DELIVERY: 'sftp',
      SFTP_HOST: '127.0.0.1',
      SFTP_PORT: String(port),
      SFTP_USERNAME: USER,
      SFTP_PRIVATE_KEY_FILE: clientKey,
      SFTP_ROOT: ROOT_IN_CHROOT,
      SFTP_HOST_KEY_SHA256: hostKeySha256,
      SFTP_TIMEOUT_SECONDS: '5',
    },
    running: () => child !== null,
    log: () => log,
    async start() {
      if (child !== null) return;
      const started = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
      started.stderr?.on('data', (chunk: Buffer) => {
        log += chunk.toString();
      });
      child = started;
      started.once('exit', () => {
        if (child === started) child = null;
      });
      try {
        await waitForBanner(port, () => child === null);
      } catch (error) {
        throw new Error(`sshd did not start: ${(error as Error).message}\n${log}`);
      }
    },
    async stop() {
      const running = child;
      if (running === null) return;
      child = null;
      await new Promise<void>((resolve) => {
        running.once('exit', () => resolve());
        running.kill('SIGTERM');
      });
    },
    async dispose() {
      await server.stop();
      await rm(state, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}

/** Waits until the port answers with an SSH banner. */
async function waitForBanner(port: number, exited: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited()) throw new Error('sshd exited');
    const banner = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.setTimeout(1000);
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString());
      });
      socket.once('error', () => resolve(''));
      socket.once('timeout', () => {
        socket.destroy();
        resolve('');
      });
    });
    if (banner.startsWith('SSH-2.0')) return;
    if (Date.now() > deadline) throw new Error(`no SSH banner on 127.0.0.1:${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Creates the test account once: no home, no shell, no password, but not locked (key login works). */
async function ensureUser(): Promise<void> {
  try {
    await run('id', ['-u', USER]);
    return;
  } catch {
    await run('useradd', [
      '--system',
      '--no-create-home',
      '--home-dir',
      '/nonexistent',
      '--shell',
      '/usr/sbin/nologin',
      USER,
    ]);
    // useradd leaves the password "!" (locked), and sshd refuses even key logins to locked accounts.
    await run('usermod', ['-p', '*', USER]);
  }
}

/**
 * `.test-state/` of the repository when sshd accepts it, else `/var/lib/listmatch-test-state`
 * (or LISTMATCH_TEST_STATE_DIR). Not under /tmp (world-writable) nor under /root (sshd reads
 * authorized_keys as the user, who cannot enter /root).
 */
async function stateRoot(): Promise<string> {
  const repo = fileURLToPath(new URL('../../', import.meta.url));
  const root =
    process.env['LISTMATCH_TEST_STATE_DIR'] ??
    (safeForSshd(repo) ? join(repo, '.test-state') : '/var/lib/listmatch-test-state');
  await mkdir(root, { recursive: true, mode: 0o755 });
  await chmod(root, 0o755);
  return root;
}

/**
 * sshd wants every directory above a chroot or key file root-owned and not writable by group or
 * others; the user reads its authorized_keys itself, so each must be open to others to enter.
 */
function safeForSshd(path: string): boolean {
  for (let dir = path; ; dir = dirname(dir)) {
    const info = statSync(dir);
    if (info.uid !== 0 || (info.mode & 0o022) !== 0 || (info.mode & 0o001) === 0) return false;
    if (dir === parse(dir).root) return true;
  }
}
