import { AppError } from '../errors.ts';

/** The folder every key's results are dropped in, under the key's own folder. */
export const SMARTMATCH_FOLDER = 'smartmatch';

const KEY_ID = /^key_[0-9A-HJKMNP-TV-Z]{26}$/;
// Letters, digits and a few punctuation marks: what deliveryArchiveName produces from a client's
// filename, with nothing a shell, a URL or a file system would treat specially.
const FILE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.()+@ -]{0,199}$/;

/**
 * True for a name that may live in a `smartmatch` folder: one path segment, no leading dot (the
 * adapters' temporary files start with one and are never listed or served), no separators or
 * control characters, at most 200 characters.
 */
export function isFolderFileName(name: string): boolean {
  return FILE_NAME.test(name) && !name.includes('..') && !name.endsWith(' ') && !name.endsWith('.');
}

/** Throws NOT_FOUND for a name that cannot be a file of a folder: it cannot exist there. */
export function assertFolderFileName(name: string): void {
  if (!isFolderFileName(name)) throw new AppError('NOT_FOUND', 'no such file in your folder');
}

export const isKeyId = (value: string): boolean => KEY_ID.test(value);

/** Key ids name folders: anything but a well-formed id is a bug, never a path to follow. */
export function assertKeyId(keyId: string): void {
  if (!isKeyId(keyId)) throw new AppError('INTERNAL', 'invalid key id for a folder');
}

/** Name of an in-progress upload next to its target: hidden, unique per attempt. */
export const temporaryName = (name: string, nonce: string): string => `.${name}.${nonce}.part`;

/** True for names `temporaryName` makes (and only those: a client's own dot-files are left alone). */
export const isTemporaryName = (name: string): boolean => /^\..+\.[0-9a-f]{12}\.part$/.test(name);

/** Newest first, then by name, so listings are stable. */
export const byNewest = (a: { name: string; modifiedAt: number }, b: { name: string; modifiedAt: number }) =>
  b.modifiedAt - a.modifiedAt || a.name.localeCompare(b.name);
