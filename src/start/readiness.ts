import type { BlobStore } from '../domain/ports/blob-store.ts';
import type { FileDrop } from '../domain/ports/file-drop.ts';
import type { VoterStore } from '../domain/voters/voter-snapshot.ts';
import type { ReadinessReport } from '../http/http-deps.ts';
import type { MetadataBackends } from './backends.ts';

/**
 * The `/readyz` check: ready when the database and the storage answer. The voter file's version
 * and the delivery target are reported beside them.
 */
export function readinessCheck(parts: {
  metadata: Pick<MetadataBackends, 'healthy'>;
  blobs: BlobStore;
  voters: VoterStore;
  drop: FileDrop;
}): () => Promise<ReadinessReport> {
  const { metadata, blobs, voters, drop } = parts;
  return async () => {
    const stats = await voters.stats().catch(() => null);
    const checks = {
      database: await metadata.healthy(),
      storage: await blobs.healthy(),
      voter_file: stats?.version ?? null,
      // The delivery target (SFTP login, cached 30 s; or the local folder writable). Reported, but
      // not part of `ready`: without it the api and matching still work and deliveries wait in
      // the queue, while taking every process out of service would stop polls as well.
      delivery: (await drop.healthy?.()) ?? null,
    };
    return { ready: checks.database && checks.storage, checks };
  };
}
