import type { Readable } from 'node:stream';

/** A file in a key's `smartmatch` folder. */
export interface FolderFile {
  name: string;
  bytes: number;
  /** Epoch ms of the last change. */
  modifiedAt: number;
}

/**
 * Each API key's `smartmatch` folder of the file-transfer area: where completed results are
 * dropped and where the web file browser reads from. Backends: a local folder under DATA_DIR
 * (embedded) and one SFTP server. Names are single path segments checked by `isFolderFileName`;
 * key ids are checked too, so no call can reach outside the key's own folder.
 */
export interface FileDrop {
  /** Where files go, for logs and /readyz: never a secret. */
  readonly description: string;
  /**
   * Writes `name` in the key's folder atomically: the file appears whole under its name or not at
   * all, replacing an earlier file of that name. The data is flushed to the target's disk before
   * the rename wherever the backend can ask for it. `open` is called once the target is reachable.
   */
  put(keyId: string, name: string, open: () => Promise<Readable>): Promise<{ bytes: number }>;
  /** The regular files of the key's folder, newest first; an absent folder is empty. */
  list(keyId: string): Promise<FolderFile[]>;
  /** Opens a file of the key's folder; rejects with NOT_FOUND unless it is a regular file there. */
  read(keyId: string, name: string): Promise<{ bytes: number; stream: Readable }>;
  /**
   * Several keys' folders at once: calls `visit` with each key's files (retention sweeps them
   * with one connection, not one per key).
   */
  forEachFolder(
    keyIds: readonly string[],
    visit: (keyId: string, files: FolderFile[]) => Promise<void>,
  ): Promise<void>;
  /** Deletes a file of the key's folder; a file already gone is no error. */
  remove(keyId: string, name: string): Promise<void>;
  /**
   * Removes temporary files older than `maxAgeMs` that a process killed mid-put left behind;
   * resolves with how many. Called by the worker's housekeeping every minute: a backend for which
   * a sweep is costly (SFTP lists every key's folder) does it at most hourly and otherwise resolves 0.
   */
  sweepTemporary?(maxAgeMs: number, now?: number): Promise<number>;
  /**
   * For /readyz: true when files can be delivered (the local folder can be written; the SFTP
   * server answers with the pinned host key and the account logs in). Answers within a few
   * seconds, and a backend that must connect may answer from a short-lived cache. Absent in test
   * fakes, where there is nothing to check.
   */
  healthy?(): Promise<boolean>;
}
