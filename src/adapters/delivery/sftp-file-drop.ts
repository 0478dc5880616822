import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { posix } from 'node:path';
import { type Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type SftpClient from 'ssh2-sftp-client';
import {
  assertFolderFileName,
  assertKeyId,
  byNewest,
  isFolderFileName,
  isKeyId,
  isTemporaryName,
  SMARTMATCH_FOLDER,
  temporaryName,
} from '../../domain/delivery/folder-names.ts';
import { AppError } from '../../domain/errors.ts';
import type { FileDrop, FolderFile } from '../../domain/ports/file-drop.ts';

export interface SftpFileDropOptions {
  host: string;
  port: number;
  username: string;
  /** Read at every connection, so a rotated key takes effect without a restart. Never logged. */
  privateKeyFile: string;
  /** Folder (as the service account sees it) holding `<key id>/smartmatch/`. */
  root: string;
  /** The one host key accepted: `SHA256:<base64>` as `ssh-keygen -lf` prints it. */
  hostKeySha256: string;
  /** Connection (handshake and login) timeout of deliveries and sweeps. */
  timeoutMs: number;
  /** How long a health check (/readyz) may take before it answers false; default 3,000 ms. */
  healthTimeoutMs?: number;
  /** How long a health answer is reused, so frequent probes don't each log in; default 30,000 ms. */
  healthCacheMs?: number;
  /** Where the adapter's own notes go (a server without fsync, a failing health check). */
  log?: (level: 'debug' | 'warn', fields: Record<string, unknown>, message: string) => void;
}

type SftpClientClass = typeof SftpClient;
/** ssh2-sftp-client 12 has lstat; @types/ssh2-sftp-client (9.x) does not declare it yet. */
type WithLstat = { lstat(path: string): Promise<SftpClient.FileStats> };
/** ssh2's SFTP session, as ssh2-sftp-client's connect resolves it (no direct dependency on ssh2). */
type SFTPWrapper = Awaited<ReturnType<SftpClient['connect']>>;
/** The connected session (ssh2-sftp-client keeps it as `sftp`; its types omit it). */
type WithSession = { sftp: SFTPWrapper };

/** The calls of ssh2's SFTP session that `uploadDurably` makes. */
export type UploadSession = Pick<SFTPWrapper, 'open' | 'write' | 'close' | 'ext_openssh_fsync'>;

/** Temporary uploads are swept at most this often: a sweep lists every key's folder. */
const SWEEP_INTERVAL_MS = 3600_000;
/** Delivered files: the service account writes them, clients (other accounts) may read them. */
const FILE_MODE = 0o644;

/** `SHA256:…` of a raw SSH public key blob, as OpenSSH prints fingerprints (base64, no padding). */
export const hostKeyFingerprint = (key: Buffer): string =>
  `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;

/** Normalizes a configured fingerprint (`SHA256:` prefix optional, padding optional). */
export const normalizeFingerprint = (value: string): string =>
  `SHA256:${value.replace(/^SHA256:/, '').replace(/=+$/, '')}`;

/**
 * `<root>/<key id>/smartmatch/<name>` for a checked key id and name: never leaves the key's folder
 * whatever the input, since both are single segments without separators or dot-dot.
 */
export function remotePathOf(root: string, keyId: string, name?: string): string {
  assertKeyId(keyId);
  if (name !== undefined) assertFolderFileName(name);
  const folder = posix.join(root, keyId, SMARTMATCH_FOLDER);
  return name === undefined ? folder : posix.join(folder, name);
}

/** SSH_FX_NO_SUCH_FILE as ssh2 and ssh2-sftp-client report it. */
const isMissing = (error: unknown): boolean => {
  const code = (error as { code?: unknown }).code;
  return code === 2 || code === 'ENOENT' || /no such file/i.test(String((error as Error).message));
};

/**
 * Writes `source` to a new file `path` over an open handle and, when the server offers the
 * `fsync@openssh.com` extension (OpenSSH 6.5 and later), fsyncs it before closing, so the rename
 * that follows never makes visible a file whose data a server crash could still lose. Resolves
 * with whether it was fsynced; a server without the extension gets the file unsynced. One write
 * is in flight at a time (as with ssh2's write stream); ssh2 splits large chunks into packets.
 */
export async function uploadDurably(
  sftp: UploadSession,
  path: string,
  source: Readable,
): Promise<{ synced: boolean }> {
  // 'wx': the temporary name is fresh; never write into a file that something else made.
  const handle = await new Promise<Buffer>((resolve, reject) =>
    sftp.open(path, 'wx', { mode: FILE_MODE }, (error, opened) => (error ? reject(error) : resolve(opened))),
  );
  let synced = false;
  try {
    let position = 0;
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        sftp.write(handle, chunk, 0, chunk.length, position, (error) => done(error ?? null));
        position += chunk.length;
      },
    });
    await pipeline(source, sink);
    synced = await fsyncIfOffered(sftp, handle);
  } catch (error) {
    await new Promise<void>((resolve) => sftp.close(handle, () => resolve()));
    throw error;
  }
  // A close error after the writes may mean they did not all land: the upload fails.
  await new Promise<void>((resolve, reject) =>
    sftp.close(handle, (error) => (error ? reject(error) : resolve())),
  );
  return { synced };
}

/** SSH_FX_OP_UNSUPPORTED: a server that advertised the extension but cannot fsync this file. */
const OP_UNSUPPORTED = 8;

async function fsyncIfOffered(sftp: UploadSession, handle: Buffer): Promise<boolean> {
  return new Promise<boolean>((resolve, reject) => {
    try {
      sftp.ext_openssh_fsync(handle, (error) => {
        if (!error) resolve(true);
        else if ((error as { code?: unknown }).code === OP_UNSUPPORTED) resolve(false);
        else reject(error);
      });
    } catch (error) {
      // ssh2 throws at once when the server's version packet did not offer the extension.
      if (/does not support/.test((error as Error).message)) resolve(false);
      else reject(error);
    }
  });
}

/**
 * The SFTP file drop: one operator-configured server and service account (key login, pinned host
 * key) holding a folder per API key, `<SFTP_ROOT>/<key id>/smartmatch/`. A put uploads to a
 * hidden temporary name and renames it over the target with `posix-rename@openssh.com` (a plain
 * SFTP rename fails when the target exists), so clients never see a partial file; the upload is
 * fsynced first where the server offers it. Each call opens its own connection: deliveries are
 * rare and a server restart then costs nothing but a retry. The health check (/readyz) logs in
 * too, at most every `healthCacheMs`. ssh2-sftp-client is loaded on first use, so the embedded
 * mode never needs it.
 */
export class SftpFileDrop implements FileDrop {
  readonly description: string;
  private readonly options: SftpFileDropOptions;
  private clientClass: Promise<SftpClientClass> | null = null;
  private lastSweep = Number.NEGATIVE_INFINITY;
  private health: { ok: boolean; at: number } | null = null;
  private healthCheck: Promise<boolean> | null = null;

  constructor(options: SftpFileDropOptions) {
    this.options = { ...options, hostKeySha256: normalizeFingerprint(options.hostKeySha256) };
    this.description = `sftp://${options.username}@${options.host}:${options.port}/${options.root}`;
  }

  async put(keyId: string, name: string, openSource: () => Promise<Readable>): Promise<{ bytes: number }> {
    const folder = remotePathOf(this.options.root, keyId);
    const target = remotePathOf(this.options.root, keyId, name);
    const temp = posix.join(folder, temporaryName(name, randomBytes(6).toString('hex')));
    return this.withClient(async (client) => {
      await client.mkdir(folder, true);
      try {
        const { synced } = await uploadDurably(
          (client as unknown as WithSession).sftp,
          temp,
          await openSource(),
        );
        if (!synced) {
          this.options.log?.(
            'debug',
            { server: this.description },
            'SFTP server offers no fsync@openssh.com: delivered without fsync',
          );
        }
        await client.posixRename(temp, target);
      } catch (error) {
        await client.delete(temp, true).catch(() => undefined);
        throw error;
      }
      return { bytes: (await client.stat(target)).size };
    });
  }

  async list(keyId: string): Promise<FolderFile[]> {
    return this.withClient((client) => this.listWith(client, keyId));
  }

  async forEachFolder(
    keyIds: readonly string[],
    visit: (keyId: string, files: FolderFile[]) => Promise<void>,
  ): Promise<void> {
    if (keyIds.length === 0) return;
    await this.withClient(async (client) => {
      for (const keyId of keyIds) await visit(keyId, await this.listWith(client, keyId));
    });
  }

  async remove(keyId: string, name: string): Promise<void> {
    const path = remotePathOf(this.options.root, keyId, name);
    await this.withClient(async (client) => {
      try {
        await client.delete(path);
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    });
  }

  /**
   * Removes the temporary uploads (`temporaryName`, regular files only) older than `maxAgeMs` from
   * every key's folder under the root, over one connection; at most once an hour (the worker asks
   * every minute; a sweep that failed waits the hour too), resolving 0 otherwise. Ages are the
   * server's modification times.
   */
  async sweepTemporary(maxAgeMs: number, now = Date.now()): Promise<number> {
    if (now - this.lastSweep < SWEEP_INTERVAL_MS) return 0;
    this.lastSweep = now;
    return this.withClient(async (client) => {
      let keys: SftpClient.FileInfo[];
      try {
        keys = await client.list(this.options.root);
      } catch (error) {
        if (isMissing(error)) return 0; // nothing delivered yet
        throw error;
      }
      let removed = 0;
      for (const key of keys) {
        if (key.type !== 'd' || !isKeyId(key.name)) continue;
        const folder = remotePathOf(this.options.root, key.name);
        let entries: SftpClient.FileInfo[];
        try {
          entries = await client.list(folder);
        } catch (error) {
          if (isMissing(error)) continue;
          throw error;
        }
        for (const entry of entries) {
          if (entry.type !== '-' || !isTemporaryName(entry.name) || now - entry.modifyTime <= maxAgeMs)
            continue;
          try {
            await client.delete(posix.join(folder, entry.name));
            removed++;
          } catch (error) {
            if (!isMissing(error)) throw error; // its upload finished or failed meanwhile
          }
        }
      }
      return removed;
    });
  }

  /**
   * For /readyz: logs in (pinned host key, the configured key) and opens the SFTP subsystem within
   * `healthTimeoutMs`. The answer is reused for `healthCacheMs`, and concurrent probes share one
   * check, so frequent probes cost one login per interval. Never throws.
   */
  async healthy(): Promise<boolean> {
    const cacheMs = this.options.healthCacheMs ?? 30_000;
    if (this.health !== null && Date.now() - this.health.at < cacheMs) return this.health.ok;
    this.healthCheck ??= this.checkHealth().finally(() => {
      this.healthCheck = null;
    });
    return this.healthCheck;
  }

  private async checkHealth(): Promise<boolean> {
    const timeoutMs = this.options.healthTimeoutMs ?? 3000;
    let timer: NodeJS.Timeout | undefined;
    const login = this.connect(timeoutMs).then(
      async (client) => {
        await client.end().catch(() => undefined);
        return null;
      },
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    const timeout = new Promise<string>((resolve) => {
      timer = setTimeout(
        () => resolve(`SFTP ${this.options.host}:${this.options.port}: no answer within ${timeoutMs} ms`),
        timeoutMs,
      );
    });
    const failure = await Promise.race([login, timeout]).finally(() => clearTimeout(timer));
    const ok = failure === null;
    // Logged when the check starts failing, not on every probe.
    if (!ok && this.health?.ok !== false) {
      this.options.log?.(
        'warn',
        { server: this.description, reason: failure },
        'SFTP delivery target is not usable',
      );
    }
    this.health = { ok, at: Date.now() };
    return ok;
  }

  private async listWith(client: SftpClient, keyId: string): Promise<FolderFile[]> {
    const folder = remotePathOf(this.options.root, keyId);
    let entries: SftpClient.FileInfo[];
    try {
      entries = await client.list(folder);
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
    // Type `-` is a regular file (from the listing's long name); links and folders are left out.
    return entries
      .filter((entry) => entry.type === '-' && isFolderFileName(entry.name))
      .map((entry) => ({ name: entry.name, bytes: entry.size, modifiedAt: entry.modifyTime }))
      .sort(byNewest);
  }

  async read(keyId: string, name: string): Promise<{ bytes: number; stream: Readable }> {
    const path = remotePathOf(this.options.root, keyId, name);
    const client = await this.connect();
    try {
      // lstat: a symbolic link planted in the folder is not followed (it could name another key's file).
      let info: SftpClient.FileStats;
      try {
        info = await (client as unknown as WithLstat).lstat(path);
      } catch (error) {
        if (isMissing(error)) throw new AppError('NOT_FOUND', 'no such file in your folder');
        throw error;
      }
      if (!info.isFile) throw new AppError('NOT_FOUND', 'no such file in your folder');
      const stream = client.createReadStream(path) as unknown as Readable;
      const close = () => void client.end().catch(() => undefined);
      stream.once('close', close);
      stream.once('error', close);
      return { bytes: info.size, stream };
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
  }

  private async withClient<T>(work: (client: SftpClient) => Promise<T>): Promise<T> {
    const client = await this.connect();
    try {
      return await work(client);
    } catch (error) {
      throw this.wrap(error);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  private async connect(timeoutMs = this.options.timeoutMs): Promise<SftpClient> {
    this.clientClass ??= import('ssh2-sftp-client').then((module) => module.default);
    const Client = await this.clientClass;
    const { host, port, username, hostKeySha256 } = this.options;
    const privateKey = await readFile(this.options.privateKeyFile);
    const client = new Client('listmatch-delivery');
    let presented: string | null = null;
    try {
      await client.connect({
        host,
        port,
        username,
        privateKey,
        readyTimeout: timeoutMs,
        // A server that stops answering mid-transfer is dropped after about three intervals.
        keepaliveInterval: Math.max(1000, Math.floor(timeoutMs / 3)),
        keepaliveCountMax: 3,
        hostVerifier: (key: Buffer) => {
          presented = hostKeyFingerprint(key);
          return presented === hostKeySha256;
        },
      });
      return client;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (presented !== null && presented !== hostKeySha256) {
        throw new Error(
          `SFTP ${host}:${port} presented host key ${presented}, not the one in SFTP_HOST_KEY_SHA256`,
          { cause: error },
        );
      }
      throw this.wrap(error);
    }
  }

  /** Vendor errors become errors that name the server (never the key file or its contents). */
  private wrap(error: unknown): unknown {
    if (error instanceof AppError) return error;
    const message = error instanceof Error ? error.message : String(error);
    if (message.startsWith('SFTP ')) return error;
    const { host, port } = this.options;
    return new Error(`SFTP ${host}:${port}: ${message}`, { cause: error });
  }
}
