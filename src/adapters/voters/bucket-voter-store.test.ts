import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { FsBlobStore } from '../blobs/fs-blob-store.ts';
import { BucketVoterStore } from './bucket-voter-store.ts';
import { FsVoterStore } from './fs-voter-store.ts';

const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/voters-small.csv', import.meta.url));
const MAX_ROW_BYTES = 1024 * 1024;

let root: string;
let blobs: FsBlobStore;
/** One machine: its own DATA_DIR voter folder, the shared bucket. */
const machine = (name: string) => {
  const local = new FsVoterStore({ dir: join(root, name, 'voters'), maxRowBytes: MAX_ROW_BYTES });
  return { dir: join(root, name, 'voters'), store: new BucketVoterStore({ local, blobs, refreshMs: 0 }) };
};

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'listmatch-bucket-voters-'));
  blobs = new FsBlobStore(join(root, 'bucket'));
});
afterEach(async () => await rm(root, { recursive: true, force: true }));

describe('BucketVoterStore', () => {
  it('publishes an import; another machine fetches that very version on first use and caches it', async () => {
    const importer = machine('importer');
    const report = await importer.store.importFile(FIXTURE, { replace: true });
    const worker = machine('worker');
    assert.equal(existsSync(join(worker.dir, report.version)), false);

    const stats = await worker.store.stats();
    assert.equal(stats?.version, report.version);
    assert.equal(stats?.rows, report.imported);
    assert.equal(existsSync(join(worker.dir, report.version)), false, 'stats come from the manifest');

    const snapshot = await worker.store.current();
    assert.equal(snapshot?.version, report.version);
    assert.equal(snapshot?.size, report.imported);
    assert.deepEqual(snapshot?.lookup('voterbase_id', 'NC-000000001').length, 1);
    assert.equal(existsSync(join(worker.dir, report.version, 'meta.json')), true, 'cached in DATA_DIR');
    assert.deepEqual(
      (await readdir(worker.dir)).filter((name) => name.startsWith('.fetching')),
      [],
      'no staging folder left',
    );
    // A job pinned to the version opens it again, from the cache.
    assert.equal((await worker.store.open(report.version))?.version, report.version);
  });

  it('knows no voter file before an import, and no version that was never published', async () => {
    const worker = machine('worker');
    assert.equal(await worker.store.current(), null);
    assert.equal(await worker.store.stats(), null);
    assert.equal(await worker.store.open('v0000-unknown'), null);
    assert.equal(await worker.store.open('../escape'), null);
  });

  it('refuses a version whose files in the bucket do not match the manifest, leaving nothing behind', async () => {
    const report = await machine('importer').store.importFile(FIXTURE, { replace: true });
    const listed = await blobs.list(`voters/${report.version}/`);
    const records = listed.find((blob) => blob.key.endsWith('/records.dat'));
    assert.ok(records);
    await blobs.put(
      records.key,
      (async function* () {
        yield Buffer.from('tampered');
      })(),
    );
    const worker = machine('worker');
    await assert.rejects(
      worker.store.current(),
      /records\.dat in object storage does not match its manifest/,
    );
    assert.deepEqual(existsSync(worker.dir) ? await readdir(worker.dir) : [], []);
  });

  it('an append on another machine starts from the published version, and publishes the result', async () => {
    const first = await machine('importer').store.importFile(FIXTURE, { replace: true });
    const extra = join(root, 'extra.csv');
    await writeFile(
      extra,
      'voterbase_id,state,voter_id,first_name,last_name\nOH-000000099,OH,000999999,EXTRA,PERSON\n',
    );
    const second = machine('second-importer');
    const report = await second.store.importFile(extra, { replace: false });
    assert.notEqual(report.version, first.version);
    assert.equal(report.carriedOver, first.imported);
    const worker = machine('worker');
    const snapshot = await worker.store.current();
    assert.equal(snapshot?.version, report.version);
    assert.equal(snapshot?.size, first.imported + 1);
    // The job pinned to the first version still finds it.
    assert.equal((await worker.store.open(first.version))?.size, first.imported);
  });

  it('keeps two versions in the bucket and on each worker, not every import ever made', async () => {
    const importer = machine('importer');
    const worker = machine('worker');
    const versions: string[] = [];
    const importOnce = async () => {
      versions.push((await importer.store.importFile(FIXTURE, { replace: true })).version);
    };
    await importOnce();
    await importOnce();
    assert.equal((await worker.store.open(versions[1]!))?.version, versions[1]);
    await importOnce();
    const published = async () =>
      [...new Set((await blobs.list('voters/v')).map((blob) => blob.key.split('/')[1]))].sort();
    assert.deepEqual(await published(), [versions[1], versions[2]]);
    assert.equal(await worker.store.open(versions[0]!), null, 'the oldest is gone from the bucket');
    assert.equal((await worker.store.current())?.version, versions[2]);
    await importOnce();
    assert.deepEqual(await published(), [versions[2], versions[3]]);
    assert.equal((await worker.store.current())?.version, versions[3]);
    const local = (await readdir(worker.dir)).filter((name) => name.startsWith('v')).sort();
    assert.deepEqual(local, [versions[2], versions[3]], 'the worker dropped what it no longer needs');
  });
});

describe('BucketVoterStore with a sharded voter file', () => {
  /** The fixture's NC voters, and the same people again as OH voters (their own ids and ZIPs). */
  async function twoStates(): Promise<string> {
    const { readFile } = await import('node:fs/promises');
    const [header, ...rows] = (await readFile(FIXTURE, 'utf8')).trimEnd().split('\n');
    const ohio = rows.map((row) =>
      row
        .replaceAll('NC-', 'OH-')
        .replace(',NC,', ',OH,')
        .replace(/,27(\d{3}),/, ',43$1,'),
    );
    const path = join(root, 'two-states.csv');
    await writeFile(path, `${[header, ...rows, ...ohio].join('\n')}\n`);
    return path;
  }

  it('publishes every shard as its own version; a worker fetches only the shards it opens', async () => {
    const local = new FsVoterStore({
      dir: join(root, 'importer', 'voters'),
      maxRowBytes: MAX_ROW_BYTES,
      shardMaxRows: 1000,
    });
    const importer = new BucketVoterStore({ local, blobs, refreshMs: 0 });
    const report = await importer.importFile(await twoStates(), { replace: true });
    const worker = machine('worker');
    const whole = await worker.store.current();
    assert.equal(whole?.version, report.version);
    const shards = whole?.shardMap?.shards ?? [];
    assert.deepEqual(
      shards.map((shard) => shard.id),
      ['nc', 'oh'],
    );
    assert.equal(shards[0]!.rows + shards[1]!.rows, report.imported);
    assert.deepEqual(await readdir(worker.dir), [report.version], 'only the map was fetched');
    const ohio = await worker.store.open(whole!.shardMap!.shards[1]!.version);
    assert.equal(ohio?.lookup('voterbase_id', 'OH-000000001').length, 1);
    assert.equal(ohio?.lookup('voterbase_id', 'NC-000000001').length, 0);
    assert.deepEqual((await readdir(worker.dir)).sort(), [report.version, `${report.version}-oh`].sort());
    // Id lookups across the file (audience onboarding) open every shard.
    await whole!.loadShards!();
    const found = whole!.lookup('voterbase_id', 'NC-000000002');
    assert.equal(found.length, 1);
    assert.equal(whole!.record(found[0]!)[0], 'NC-000000002');
    const ohioFound = whole!.lookup('voterbase_id', 'OH-000000002');
    assert.equal(whole!.record(ohioFound[0]!)[0], 'OH-000000002');
  });

  it('refuses to append to a sharded version, and prunes old imports with their shards', async () => {
    const local = new FsVoterStore({
      dir: join(root, 'importer', 'voters'),
      maxRowBytes: MAX_ROW_BYTES,
      shardMaxRows: 1000,
    });
    const importer = new BucketVoterStore({ local, blobs, refreshMs: 0 });
    const path = await twoStates();
    await importer.importFile(path, { replace: true });
    await assert.rejects(
      importer.importFile(path, { replace: false }),
      /imported whole: import the complete file with --replace/,
    );
    await importer.importFile(path, { replace: true });
    const last = await importer.importFile(path, { replace: true });
    const keys = (await blobs.list('voters/')).map((blob) => blob.key.split('/')[1]!);
    const families = new Set(
      keys.filter((name) => name.startsWith('v')).map((name) => name.split('-').slice(0, 2).join('-')),
    );
    assert.equal(families.size, 2, 'the current import and the one before, each with its shards');
    assert.ok(families.has(last.version));
    const local2 = await readdir(join(root, 'importer', 'voters'));
    assert.equal(
      new Set(local2.filter((name) => name.startsWith('v')).map((n) => n.split('-').slice(0, 2).join('-')))
        .size,
      2,
    );
    assert.ok(local2.includes(`${last.version}-nc`) && local2.includes(`${last.version}-oh`));
  });
});

describe('FsVoterStore memory for shards', () => {
  it('lets go of the least recently used shard beyond cacheBytes, never one a job has pinned', async () => {
    const { readFile } = await import('node:fs/promises');
    const [header, ...rows] = (await readFile(FIXTURE, 'utf8')).trimEnd().split('\n');
    // Three states: the fixture's NC and OH voters, and its NC voters again as GA voters.
    const georgia = rows
      .filter((row) => row.includes(',NC,'))
      .map((row) =>
        row
          .replaceAll('NC-', 'GA-')
          .replace(',NC,', ',GA,')
          .replace(/,27(\d{3}),/, ',30$1,'),
      );
    const path = join(root, 'three-states.csv');
    await writeFile(path, `${[header, ...rows, ...georgia].join('\n')}\n`);
    const evicted: string[] = [];
    const dir = join(root, 'worker', 'voters');
    const importer = new FsVoterStore({ dir, maxRowBytes: MAX_ROW_BYTES, shardMaxRows: 1000 });
    await importer.importFile(path, { replace: true });
    const whole = await importer.current();
    const versions = whole!.shardMap!.shards.map((shard) => shard.version);
    assert.equal(versions.length, 3);
    const biggest = Math.max(...whole!.shardMap!.shards.map((shard) => shard.memoryBytes));
    // Room for two shards.
    const store = new FsVoterStore({
      dir,
      maxRowBytes: MAX_ROW_BYTES,
      cacheBytes: 2 * biggest + 1,
      onEvict: (snapshot) => evicted.push(snapshot.version),
    });
    const [ga, nc, oh] = versions as [string, string, string];
    await store.open(ga);
    await store.open(nc);
    assert.deepEqual(evicted, []);
    await store.open(oh);
    assert.deepEqual(evicted, [ga], 'the least recently used');
    const unpin = store.pin(nc);
    await store.open(ga);
    assert.deepEqual(evicted, [ga, oh], 'not the pinned one, though it was used before');
    unpin();
    await store.open(oh);
    assert.deepEqual(evicted, [ga, oh, nc]);
    assert.deepEqual(
      store
        .loadedVersions()
        .filter((v) => v !== whole!.version)
        .sort(),
      [ga, oh].sort(),
    );
  });
});
