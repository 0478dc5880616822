import { randomBytes } from 'node:crypto';
import { constants, createWriteStream, type Dirent } from 'node:fs';
import { access, type FileHandle, mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
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
import { syncDirectory } from '../blobs/fs-blob-store.ts';

/**
 * The embedded file drop: `<root>/<key id>/smartmatch/<name>` on the local disk (root is
 * `DATA_DIR/files`). A put writes a hidden temporary file next to the target, fsyncs it, renames
 * it over the target and fsyncs the folder, so a reader sees the old file or the new one, whole.
 */
export class LocalFileDrop implements FileDrop {
  readonly description: string;
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
    this.description = `local folder ${this.root}`;
  }

  /** The key's folder; the key id is checked so that it can only name a child of the root. */
  folderOf(keyId: string): string {
    assertKeyId(keyId);
    return join(this.root, keyId, SMARTMATCH_FOLDER);
  }

  async put(keyId: string, name: string, openSource: () => Promise<Readable>): Promise<{ bytes: number }> {
    assertFolderFileName(name);
    const folder = this.folderOf(keyId);
    await mkdir(folder, { recursive: true, mode: 0o750 });
    const target = join(folder, name);
    const temp = join(folder, temporaryName(name, randomBytes(6).toString('hex')));
    try {
      // flush: the data is fsynced before the rename makes it visible under its name.
      await pipeline(await openSource(), createWriteStream(temp, { flags: 'wx', mode: 0o640, flush: true }));
      await rename(temp, target);
      await syncDirectory(folder);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    return { bytes: (await stat(target)).size };
  }

  async list(keyId: string): Promise<FolderFile[]> {
    const folder = this.folderOf(keyId);
    let entries: Dirent[];
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const files: FolderFile[] = [];
    // Dirent types come from lstat: symbolic links are not files here and are left out.
    for (const entry of entries) {
      if (!entry.isFile() || !isFolderFileName(entry.name)) continue;
      const info = await stat(join(folder, entry.name)).catch(() => null);
      if (info?.isFile()) files.push({ name: entry.name, bytes: info.size, modifiedAt: info.mtimeMs });
    }
    return files.sort(byNewest);
  }

  async read(keyId: string, name: string): Promise<{ bytes: number; stream: Readable }> {
    assertFolderFileName(name);
    const path = join(this.folderOf(keyId), name);
    let handle: FileHandle;
    try {
      // O_NOFOLLOW: a symbolic link planted in the folder (ELOOP) is never followed out of it.
      handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ELOOP' || code === 'ENOTDIR' || code === 'EISDIR') {
        throw new AppError('NOT_FOUND', 'no such file in your folder');
      }
      throw error;
    }
    const info = await handle.stat();
    if (!info.isFile()) {
      await handle.close();
      throw new AppError('NOT_FOUND', 'no such file in your folder');
    }
    return { bytes: info.size, stream: handle.createReadStream() };
  }

  async forEachFolder(
    keyIds: readonly string[],
    visit: (keyId: string, files: FolderFile[]) => Promise<void>,
  ): Promise<void> {
    for (const keyId of keyIds) await visit(keyId, await this.list(keyId));
  }

  async remove(keyId: string, name: string): Promise<void> {
    assertFolderFileName(name);
    await rm(join(this.folderOf(keyId), name), { force: true });
  }

  /** The root is (or can be made) a folder this process may write: what every put needs first. */
  async healthy(): Promise<boolean> {
    try {
      await mkdir(this.root, { recursive: true, mode: 0o750 });
      await access(this.root, constants.W_OK);
      return true;
    } catch {
      return false;
    }
  }

  async sweepTemporary(maxAgeMs: number, now = Date.now()): Promise<number> {
    const keys = await readdir(this.root).catch(() => [] as string[]);
    let removed = 0;
    for (const keyId of keys) {
      if (!isKeyId(keyId)) continue;
      const folder = join(this.root, keyId, SMARTMATCH_FOLDER);
      const names = await readdir(folder).catch(() => [] as string[]);
      for (const name of names) {
        if (!isTemporaryName(name)) continue;
        const info = await stat(join(folder, name)).catch(() => null);
        if (info !== null && now - info.mtimeMs > maxAgeMs) {
          await rm(join(folder, name), { force: true });
          removed++;
        }
      }
    }
    return removed;
  }
}
