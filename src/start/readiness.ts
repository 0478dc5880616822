import { statfs } from 'node:fs/promises';
import type { BlobStore } from '../domain/ports/blob-store.ts';
import type { FileDrop } from '../domain/ports/file-drop.ts';
import type { VoterStore } from '../domain/voters/voter-snapshot.ts';
import type { ReadinessReport } from '../http/http-deps.ts';
import type { MetadataBackends } from './backends.ts';

/**
 * The `/readyz` check: ready when the database and the storage answer, and DATA_DIR has at least
 * `dataDir.minFreeBytes` free (a full disk fails every upload and registration: a balancer had
 * better send them elsewhere). The voter file's version and the delivery target are reported beside them.
 */
export function readinessCheck(parts: {
  metadata: Pick<MetadataBackends, 'healthy'>;
  blobs: BlobStore;
  voters: VoterStore;
  drop: FileDrop;
  /** `freeBytes`: bytes an unprivileged process may still write there (freeBytesUnder). */
  dataDir: { freeBytes: () => Promise<number>; minFreeBytes: number };
}): () => Promise<ReadinessReport> {
  const { metadata, blobs, voters, drop, dataDir } = parts;
  return async () => {
    const stats = await voters.stats().catch(() => null);
    const roomLeft =
      dataDir.minFreeBytes === 0 ||
      (await dataDir.freeBytes().then(
        (free) => free >= dataDir.minFreeBytes,
        () => false,
      ));
    const checks = {
      database: await metadata.healthy(),
      storage: (await blobs.healthy()) && roomLeft,
      voter_file: stats?.version ?? null,
      // The delivery target (SFTP login, cached 30 s; or the local folder writable). Reported, but
      // not part of `ready`: without it the api and matching still work and deliveries wait in
      // the queue, while taking every process out of service would stop polls as well.
      delivery: (await drop.healthy?.()) ?? null,
    };
    return { ready: checks.database && checks.storage, checks };
  };
}

/** Bytes free for unprivileged writes on the file system that holds `path` (statfs: bavail × bsize). */
export async function freeBytesUnder(path: string): Promise<number> {
  const info = await statfs(path);
  return info.bavail * info.bsize;
}
