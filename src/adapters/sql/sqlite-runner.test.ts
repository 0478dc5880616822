import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SqliteQueue } from '../queue/sqlite-queue.ts';
import { SqliteDatabase } from '../sqlite/sqlite-database.ts';
import { SqliteRunner } from './sqlite-runner.ts';

const MIGRATIONS = fileURLToPath(new URL('../../../migrations/sqlite', import.meta.url));
const FOLLOW_UP = { type: 'notify', payload: { n: 1 } };

let database: SqliteDatabase;
let runner: SqliteRunner;

const insert = (id: number, flag: boolean | null = null) => ({
  sql: 'INSERT INTO scratch (id, flag) VALUES (?, ?)',
  params: [id, flag],
});
const ids = async () => (await runner.all('SELECT id FROM scratch ORDER BY id')).map((row) => row['id']);
const queued = () =>
  database.db
    .prepare('SELECT type FROM queue ORDER BY id')
    .all()
    .map((row) => row['type']);

beforeEach(() => {
  database = new SqliteDatabase(':memory:', MIGRATIONS);
  database.db.exec('CREATE TABLE scratch (id INTEGER PRIMARY KEY, flag INTEGER)');
  runner = new SqliteRunner(database, new SqliteQueue(database));
});

afterEach(() => database.close());

describe('SqliteRunner single statements', () => {
  it('runs, counts changed rows, and reads rows back', async () => {
    assert.equal(await runner.run(insert(1).sql, insert(1).params), 1);
    assert.equal(await runner.run(insert(2).sql, insert(2).params), 1);
    assert.equal(await runner.run('UPDATE scratch SET flag = ? WHERE id > ?', [7, 0]), 2);
    assert.deepEqual(await ids(), [1, 2]);
    assert.deepEqual(
      { ...(await runner.get('SELECT id, flag FROM scratch WHERE id = ?', [2])) },
      { id: 2, flag: 7 },
    );
    assert.equal(await runner.get('SELECT id FROM scratch WHERE id = ?', [3]), null);
  });

  it('stores booleans as 0/1, which the cell decoder reads back', async () => {
    await runner.run(insert(1, true).sql, insert(1, true).params);
    await runner.run(insert(2, false).sql, insert(2, false).params);
    const rows = await runner.all('SELECT flag FROM scratch ORDER BY id');
    assert.deepEqual(
      rows.map((row) => row['flag']),
      [1, 0],
    );
    assert.deepEqual(
      rows.map((row) => runner.cells.bool(row['flag'])),
      [true, false],
    );
  });

  it('keeps working past the prepared-statement cache size', async () => {
    for (let i = 0; i < 250; i++) assert.equal((await runner.get(`SELECT ${i} AS n`))?.['n'], i);
    assert.equal((await runner.get('SELECT 0 AS n'))?.['n'], 0);
  });
});

describe('SqliteRunner.write', () => {
  it('commits the statements and the follow-ups together', async () => {
    assert.equal(await runner.write([insert(1), insert(2)], [FOLLOW_UP]), true);
    assert.deepEqual(await ids(), [1, 2]);
    assert.deepEqual(queued(), ['notify']);
  });

  it('keeps nothing and enqueues nothing when a guarded statement changes no row', async () => {
    await runner.run(insert(1).sql, insert(1).params);
    const guarded = { sql: 'UPDATE scratch SET flag = 1 WHERE id = ?', params: [9], mustChangeOneRow: true };
    assert.equal(await runner.write([insert(2), guarded, insert(3)], [FOLLOW_UP]), false);
    assert.deepEqual(await ids(), [1]);
    assert.deepEqual(queued(), []);
  });

  it('refuses a guarded statement that changes several rows', async () => {
    await runner.write([insert(1), insert(2)]);
    const broad = { sql: 'UPDATE scratch SET flag = 1', params: [], mustChangeOneRow: true };
    assert.equal(await runner.write([broad], [FOLLOW_UP]), false);
    assert.deepEqual(
      (await runner.all('SELECT flag FROM scratch')).map((row) => row['flag']),
      [null, null],
    );
  });

  it('rolls back and rejects when a statement or a follow-up fails, and stays usable', async () => {
    await assert.rejects(runner.write([insert(1), insert(1)]), /UNIQUE/);
    await assert.rejects(runner.write([insert(2)], [{ type: 'bad', payload: { n: 1n } }]), TypeError);
    assert.deepEqual(await ids(), []);
    assert.deepEqual(queued(), []);
    assert.equal(await runner.write([insert(3)], [FOLLOW_UP]), true);
    assert.deepEqual(await ids(), [3]);
  });

  it('refuses follow-ups without a queue, before writing anything', async () => {
    const bare = new SqliteRunner(database);
    await assert.rejects(bare.write([insert(1)], [FOLLOW_UP]), /without a queue/);
    assert.deepEqual(await ids(), []);
    assert.equal(await bare.write([insert(1)]), true);
  });
});
