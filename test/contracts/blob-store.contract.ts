/**
 * The BlobStore contract, run against every backend (test/integration/contracts/blob-store.test.ts).
 * Each backend gives an empty store and a way to see writes in progress (temporary files,
 * unfinished multipart uploads), so that "leaves nothing" is checked where it could hide.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { after, describe, type TestContext, test } from 'node:test';
import type { BlobStore } from '../../src/domain/ports/blob-store.ts';

export interface BlobStoreUnderTest {
  store: BlobStore;
  /** Writes begun but neither committed nor aborted (temporary files, multipart uploads). */
  pendingWrites(): Promise<string[]>;
  /** Parts the stored blob was uploaded in, where the backend has parts. */
  partCount?(key: string): Promise<number>;
  close(): Promise<void>;
}

export interface BlobStoreBackend {
  name: string;
  /** An empty store; called once, by the first test that runs. */
  open(): Promise<BlobStoreUnderTest>;
  /** True when the test has to skip (and has), e.g. no server on this machine. */
  skip?(t: TestContext): Promise<boolean>;
  /** The part size of multipart writes, when the backend has parts: writers then span several. */
  partSizeBytes?: number;
  /** Keys beyond the port's `[A-Za-z0-9_.-]` rule that this backend also stores. */
  extraKeys?: string[];
}

const MiB = 1024 * 1024;

/** Deterministic pseudo-random bytes (xorshift), generated in chunks: large bodies are never held whole. */
function* bytes(total: number, seed: number, chunk = 64 * 1024): Generator<Buffer> {
  let state = seed >>> 0 || 1;
  for (let sent = 0; sent < total; sent += chunk) {
    const size = Math.min(chunk, total - sent);
    const buffer = Buffer.allocUnsafe(size);
    for (let i = 0; i < size; i++) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      buffer[i] = state & 0xff;
    }
    yield buffer;
  }
}

function digestOf(chunks: Iterable<Buffer>): { sha256: string; bytes: number } {
  const hash = createHash('sha256');
  let length = 0;
  for (const chunk of chunks) {
    hash.update(chunk);
    length += chunk.length;
  }
  return { sha256: hash.digest('hex'), bytes: length };
}

async function digestOfBlob(store: BlobStore, key: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let length = 0;
  for await (const chunk of await store.read(key)) {
    hash.update(chunk as Buffer);
    length += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), bytes: length };
}

async function textOf(store: BlobStore, key: string): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of await store.read(key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const keysOf = async (store: BlobStore, prefix: string, options?: { after?: string; limit?: number }) =>
  (await store.list(prefix, options)).map((blob) => blob.key);

/** Registers the contract's tests for one backend. */
export function blobStoreContract(backend: BlobStoreBackend): void {
  describe(`BlobStore contract: ${backend.name}`, () => {
    let opened: Promise<BlobStoreUnderTest> | undefined;
    /** The store, or null when the test skipped. */
    const subject = async (t: TestContext): Promise<BlobStoreUnderTest | null> => {
      if (backend.skip !== undefined && (await backend.skip(t))) return null;
      opened ??= backend.open();
      return opened;
    };
    after(async () => {
      if (opened !== undefined) await (await opened).close();
    });
    // Writers that must span at least three parts where the backend has parts.
    const multiPartBytes = backend.partSizeBytes === undefined ? 3 * MiB : 2 * backend.partSizeBytes + MiB;

    test('put then read returns the same bytes: binary, every byte value, many chunks', async (t) => {
      const s = await subject(t);
      if (s === null) return;
      const every = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
      const chunks = [every, ...bytes(300_000, 7, 4099), Buffer.from([0, 0xff, 0x0d, 0x0a])];
      const put = await s.store.put('round-trip/binary.bin', Readable.from(chunks));
      const expected = digestOf(chunks);
      assert.equal(put.bytes, expected.bytes);
      assert.deepEqual(await s.store.stat('round-trip/binary.bin'), { bytes: expected.bytes });
      assert.deepEqual(await digestOfBlob(s.store, 'round-trip/binary.bin'), expected);
    });

    test('an empty blob is stored, read and listed with 0 bytes', async (t) => {
      const s = await subject(t);
      if (s === null) return;
      assert.deepEqual(await s.store.put('round-trip/empty.csv', Readable.from([])), { bytes: 0 });
      assert.deepEqual(await s.store.stat('round-trip/empty.csv'), { bytes: 0 });
      assert.equal(await textOf(s.store, 'round-trip/empty.csv'), '');
      const listed = await s.store.list('round-trip/empty');
      assert.deepEqual(
        listed.map((blob) => [blob.key, blob.bytes]),
        [['round-trip/empty.csv', 0]],
      );
    });

    test('a 20 MB put streams through and reads back byte-identical', async (t) => {
      const s = await subject(t);
      if (s === null) return;
      const size = 20 * 1000 * 1000 + 17;
      const put = await s.store.put('round-trip/large.csv', Readable.from(bytes(size, 11)), {
        maxBytes: size,
      });
      assert.equal(put.bytes, size);
      assert.deepEqual(await s.store.stat('round-trip/large.csv'), { bytes: size });
      assert.deepEqual(await digestOfBlob(s.store, 'round-trip/large.csv'), digestOf(bytes(size, 11)));
      assert.deepEqual(await s.pendingWrites(), []);
    });

    test('put over maxBytes rejects with PAYLOAD_TOO_LARGE and leaves nothing, small or multi-part', async (t) => {
      const s = await subject(t);
      if (s === null) return;
      for (const [key, size, maxBytes] of [
        ['too-large/small.csv', 20, 15],
        ['too-large/large.csv', multiPartBytes, multiPartBytes - 1],
      ] as const) {
        await assert.rejects(s.store.put(key, Readable.from(bytes(size, 3)), { maxBytes }), {
          code: 'PAYLOAD_TOO_LARGE',
        });
        assert.equal(await s.store.stat(key), null, key);
        await assert.rejects(s.store.read(key), { code: 'NOT_FOUND' });
        assert.deepEqual(await keysOf(s.store, 'too-large/'), []);
        assert.deepEqual(await s.pendingWrites(), [], key);
      }
      // Exactly at the cap is allowed.
      assert.deepEqual(
        await s.store.put('too-large/exact.csv', Readable.from(bytes(15, 3)), { maxBytes: 15 }),
        {
          bytes: 15,
        },
      );
    });

    test('a failed put leaves the blob already under that key as it was', async (t) => {
      const s = await subject(t);
      if (s === null) return;
      await s.store.put('keep/upload.csv', Readable.from([Buffer.from('first,version\n')]));
      await assert.rejects(s.store.put('keep/upload.csv', Readable.from(bytes(100, 5)), { maxBytes: 10 }), {
        code: 'PAYLOAD_TOO_LARGE',
      });
      async function* broken() {
        yield Buffer.from('half a file');
        throw new Error('client went away');
      }
      await assert.rejects(s.store.put('keep/upload.csv', broken()), /client went away/);
      assert.equal(await textOf(s.store, 'keep/upload.csv'), 'first,version\n');
      assert.deepEqual(await s.pendingWrites(), []);
    });

    test('put over an existing blob replaces it whole', async (t) => {
      const s = await subject(t);
      if (s === null) return;
      await s.store.put('replace/a.csv', Readable.from([Buffer.from('old old old old')]));
      await s.store.put('replace/a.csv', Readable.from([Buffer.from('new')]));
      assert.equal(await textOf(s.store, 'replace/a.csv'), 'new');
      assert.deepEqual(await s.store.stat('replace/a.csv'), { bytes: 3 });
    });

    test('a writer is invisible until commit, which makes it whole and visible', async (t) => {
      const s = await subject(t);
      if (s === null) return;
      const writer = await s.store.openWriter('writer/committed.csv');
      await pipeline(Readable.from(bytes(multiPartBytes, 21, 256 * 1024)), writer.stream);
      // The stream has ended, but nothing is visible before commit.
      assert.equal(await s.store.stat('writer/committed.csv'), null);
      assert.deepEqual(await keysOf(s.store, 'writer/'), []);
      assert.deepEqual(await writer.commit(), { bytes: multiPartBytes });
      assert.deepEqual(await s.store.stat('writer/committed.csv'), { bytes: multiPartBytes });
      assert.deepEqual(
        await digestOfBlob(s.store, 'writer/committed.csv'),
        digestOf(bytes(multiPartBytes, 21)),
      );
      assert.deepEqual(await keysOf(s.store, 'writer/'), ['writer/committed.csv']);
      assert.deepEqual(await s.pendingWrites(), []);
      if (s.partCount !== undefined) assert.ok((await s.partCount('writer/committed.csv')) >= 3);
    });

    test('commit ends a stream its user left open; a small writer is one part', async (t) => {
      const s = await subject(t);
      if (s === null) return;
      const writer = await s.store.openWriter('writer/unended.csv');
      writer.stream.write('a,b\n');
      writer.stream.write('1,2\n');
      assert.deepEqual(await writer.commit(), { bytes: 8 });
      assert.equal(await textOf(s.store, 'writer/unended.csv'), 'a,b\n1,2\n');
      if (s.partCount !== undefined) assert.equal(await s.partCount('writer/unended.csv'), 1);
    });

    test('abort discards everything written, also parts already stored, and abort twice is fine', async (t) => {
      const s = await subject(t);
      if (s === null) return;
      const writer = await s.store.openWriter('writer/aborted.csv');
      for (const chunk of bytes(multiPartBytes, 31, 512 * 1024)) {
        if (!writer.stream.write(chunk)) await new Promise((drained) => writer.stream.once('drain', drained));
      }
      if (backend.partSizeBytes !== undefined) {
        // Parts are on their way (or stored) before the abort: the multipart upload exists.
        const deadline = Date.now() + 10_000;
        while ((await s.pendingWrites()).length === 0 && Date.now() < deadline) {
          await new Promise((wait) => setTimeout(wait, 100));
        }
        assert.deepEqual(await s.pendingWrites(), ['writer/aborted.csv']);
      }
      await writer.abort();
      await writer.abort();
      assert.equal(await s.store.stat('writer/aborted.csv'), null);
      assert.deepEqual(await keysOf(s.store, 'writer/aborted'), []);
      assert.deepEqual(await s.pendingWrites(), []);
    });

    test('abort after the stream ended, and abort after a failed pipeline, leave nothing', async (t) => {
      const s = await subject(t);
      if (s === null) return;
      const ended = await s.store.openWriter('writer/ended-then-aborted.csv');
      await pipeline(Readable.from([Buffer.from('complete, but not wanted\n')]), ended.stream);
      await ended.abort();

      const failing = await s.store.openWriter('writer/failed.csv');
      async function* broken() {
        yield* bytes(backend.partSizeBytes ?? MiB, 41);
        throw new Error('source failed');
      }
      await assert.rejects(pipeline(broken(), failing.stream), /source failed/);
      await failing.abort();

      assert.deepEqual(await keysOf(s.store, 'writer/ended-then-aborted'), []);
      assert.equal(await s.store.stat('writer/failed.csv'), null);
      assert.deepEqual(await s.pendingWrites(), []);
    });

    test('missing keys: stat is null, read is NOT_FOUND, delete is a no-op', async (t) => {
      const s = await subject(t);
      if (s === null) return;
      assert.equal(await s.store.stat('missing/nothing.csv'), null);
      await assert.rejects(s.store.read('missing/nothing.csv'), { code: 'NOT_FOUND' });
      await s.store.delete('missing/nothing.csv');
      await s.store.put('missing/soon.csv', Readable.from([Buffer.from('x')]));
      await s.store.delete('missing/soon.csv');
      assert.equal(await s.store.stat('missing/soon.csv'), null);
      await assert.rejects(s.store.read('missing/soon.csv'), { code: 'NOT_FOUND' });
      await s.store.delete('missing/soon.csv');
    });

    test('list: string prefix, key order, after, limit, paging, sizes and times', async (t) => {
      const s = await subject(t);
      if (s === null) return;
      const started = Date.now();
      const keys = [
        'listing/uploads/job_2/upl_b.csv',
        'listing/uploads/job_1/upl_a.csv',
        'listing/uploads/job_10/upl_c.csv',
        'listing/uploads-other',
        'listing/results/job_1/result.csv',
      ];
      for (const key of keys) await s.store.put(key, Readable.from([Buffer.from(key)]));
      const pending = await s.store.openWriter('listing/uploads/job_3/in-progress.csv');
      pending.stream.write('not yet');

      assert.deepEqual(await keysOf(s.store, 'listing/uploads/'), [
        'listing/uploads/job_1/upl_a.csv',
        'listing/uploads/job_10/upl_c.csv',
        'listing/uploads/job_2/upl_b.csv',
      ]);
      // A prefix is a string prefix, not a folder: `-` sorts before `/`.
      assert.deepEqual(await keysOf(s.store, 'listing/uploads'), [
        'listing/uploads-other',
        'listing/uploads/job_1/upl_a.csv',
        'listing/uploads/job_10/upl_c.csv',
        'listing/uploads/job_2/upl_b.csv',
      ]);
      assert.deepEqual(await keysOf(s.store, 'listing/uploads/job_1'), [
        'listing/uploads/job_1/upl_a.csv',
        'listing/uploads/job_10/upl_c.csv',
      ]);
      assert.deepEqual(
        await keysOf(s.store, 'listing/uploads/', { after: 'listing/uploads/job_1/upl_a.csv' }),
        ['listing/uploads/job_10/upl_c.csv', 'listing/uploads/job_2/upl_b.csv'],
      );
      assert.deepEqual(await keysOf(s.store, 'listing/', { limit: 2 }), [
        'listing/results/job_1/result.csv',
        'listing/uploads-other',
      ]);
      assert.deepEqual(await keysOf(s.store, 'listing/nothing/'), []);
      assert.deepEqual(
        await keysOf(s.store, 'listing/uploads/', { after: 'listing/uploads/job_2/upl_b.csv' }),
        [],
      );

      // Paging one by one with `after` visits every key once, in order.
      const paged: string[] = [];
      for (let last: string | undefined; ; ) {
        const page = await keysOf(
          s.store,
          'listing/',
          last === undefined ? { limit: 1 } : { after: last, limit: 1 },
        );
        if (page.length === 0) break;
        assert.equal(page.length, 1);
        paged.push(page[0]!);
        last = page[0];
      }
      assert.deepEqual(paged, [...keys].sort());

      const [blob] = await s.store.list('listing/uploads/job_2/');
      assert.equal(blob?.bytes, 'listing/uploads/job_2/upl_b.csv'.length);
      // Whole seconds on S3: allow the second the test started in.
      assert.ok(
        blob !== undefined && blob.modifiedAt >= started - 1000 && blob.modifiedAt <= Date.now() + 1000,
      );

      await pending.abort();
    });

    test('keys with odd but legal characters round-trip through put, stat, list, read and delete', async (t) => {
      const s = await subject(t);
      if (s === null) return;
      const legal = [
        'odd/_leading-underscore/x',
        'odd/0/1/2/3/4/5/6/7/8/9/deep.csv',
        'odd/dots.in.the.middle/a.b.c.csv.gz',
        'odd/dash-and_underscore/-x_-.zip',
        'odd/MiXeD-Case/UPPER.CSV',
        'odd/trailing.',
        `odd/long/${'k'.repeat(200)}.csv`,
        'odd/uploads/job_01J9ZKQ3V7XW8N4M2B6C5D0E1F/upl_01J9ZKQ3V7XW8N4M2B6C5D0E1G.csv',
      ];
      const keys = [...legal, ...(backend.extraKeys ?? [])];
      for (const key of keys) {
        await s.store.put(key, Readable.from([Buffer.from(`content of ${key}`)]));
        assert.deepEqual(await s.store.stat(key), { bytes: Buffer.byteLength(`content of ${key}`) }, key);
        assert.equal(await textOf(s.store, key), `content of ${key}`, key);
      }
      const listed = await keysOf(s.store, 'odd/');
      assert.deepEqual(
        listed,
        [...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))),
      );
      for (const key of keys) {
        await s.store.delete(key);
        assert.equal(await s.store.stat(key), null, key);
      }
      assert.deepEqual(await keysOf(s.store, 'odd/'), []);
    });

    test('healthy is true for a working store', async (t) => {
      const s = await subject(t);
      if (s === null) return;
      assert.equal(await s.store.healthy(), true);
    });
  });
}
