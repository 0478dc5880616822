import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isAppError } from '../domain/errors.ts';
import { reportingStorageFull } from './storage-full.ts';

const sqliteFull = () =>
  Object.assign(new Error('database or disk is full'), { code: 'ERR_SQLITE_ERROR', errcode: 13 });

class Store {
  rows = 1;
  async insert(fail: Error | null): Promise<number> {
    if (fail !== null) throw fail;
    return ++this.rows;
  }
  count(fail: Error | null): number {
    if (fail !== null) throw fail;
    return this.rows;
  }
}

test("a metadata port's full-disk failures become STORAGE_FULL; the rest pass unchanged", async () => {
  const store = reportingStorageFull(new Store());
  assert.equal(await store.insert(null), 2, 'methods run on the store itself');
  assert.equal(store.count(null), 2);
  assert.equal(store.rows, 2);
  const full = sqliteFull();
  await assert.rejects(store.insert(full), (error: unknown) => {
    assert.ok(isAppError(error) && error.code === 'STORAGE_FULL');
    assert.equal(error.message, "the service's storage is full");
    assert.equal(error.cause, full);
    return true;
  });
  assert.throws(() => store.count(sqliteFull()), { code: 'STORAGE_FULL' });
  const busy = Object.assign(new Error('database is locked'), { code: 'ERR_SQLITE_ERROR', errcode: 5 });
  await assert.rejects(store.insert(busy), (error: unknown) => error === busy);
});
