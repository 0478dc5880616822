import { readFile, writeFile } from 'node:fs/promises';
import { extendBox } from '../../domain/voters/shard-map.ts';

/** The box of a shard's voters' coordinates: south, west, north, east (null: none has any). */
export type ShardBox = [number, number, number, number] | null;

/**
 * What a sharded import's directory and map need of a shard's voters: the directory's hashes of
 * their phones, e-mail and stateless ids (directoryHashes), made by the threads that prepare its
 * records (voter-blocks.ts), and the box of their coordinates, gathered by the threads that build
 * its match index from the values they normalize anyway (match-index-build.worker.ts). Only the
 * records the shard keeps count (a row the build rejects routes no list row). Kept in a file per
 * shard until every shard is built, so the directory's entries are not held through the builds.
 */
export interface ShardContacts {
  hashes: Uint32Array;
  box: ShardBox;
}

/** The box of several parts' boxes (a build's threads' each). */
export function combineBoxes(boxes: readonly ShardBox[]): ShardBox {
  let box: ShardBox = null;
  for (const part of boxes)
    if (part !== null) box = extendBox(extendBox(box, part[0], part[1]), part[2], part[3]);
  return box;
}

/** The file: the box as 4 float64 (NaN for none), then the hashes (little-endian, as the machine's). */
export async function writeShardContacts(path: string, contacts: ShardContacts): Promise<void> {
  const box = new Float64Array(contacts.box ?? [Number.NaN, Number.NaN, Number.NaN, Number.NaN]);
  const bytes = new Uint8Array(box.byteLength + contacts.hashes.byteLength);
  bytes.set(new Uint8Array(box.buffer), 0);
  bytes.set(
    new Uint8Array(contacts.hashes.buffer, contacts.hashes.byteOffset, contacts.hashes.byteLength),
    BOX_BYTES,
  );
  await writeFile(path, bytes);
}

/** The box's 4 float64 before the hashes. */
const BOX_BYTES = 32;

/** The hashes the contacts file at `path` holds, from its size in bytes (writeShardContacts's layout). */
export function contactsHashCount(path: string, bytes: number): number {
  if (bytes < BOX_BYTES || (bytes - BOX_BYTES) % 4 !== 0)
    throw new Error(`${path}: not a shard contacts file`);
  return (bytes - BOX_BYTES) / 4;
}

export async function readShardContacts(path: string): Promise<ShardContacts> {
  const bytes = await readFile(path);
  contactsHashCount(path, bytes.length);
  // Copied out: a Buffer from readFile may sit at an offset no typed array of its width can view.
  const copy = new Uint8Array(bytes);
  const box = new Float64Array(copy.buffer, 0, 4);
  return {
    hashes: new Uint32Array(copy.buffer, BOX_BYTES),
    box: Number.isNaN(box[0]!) ? null : [box[0]!, box[1]!, box[2]!, box[3]!],
  };
}
