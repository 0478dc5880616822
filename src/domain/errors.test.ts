import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError, isStorageFull, STORAGE_FULL_MESSAGE, storageFullOr } from './errors.ts';

const errno = (code: string) => Object.assign(new Error(`${code}: no space left`), { code });

test('a full disk or quota is recognized from the file system, SQLite and PostgreSQL', () => {
  assert.ok(isStorageFull(errno('ENOSPC')));
  assert.ok(isStorageFull(errno('EDQUOT')));
  // node:sqlite: SQLITE_FULL, plain or as the base of an extended result code.
  const sqlite = (errcode: number) =>
    Object.assign(new Error('database or disk is full'), { code: 'ERR_SQLITE_ERROR', errcode });
  assert.ok(isStorageFull(sqlite(13)));
  assert.ok(isStorageFull(sqlite(13 | (1 << 8))));
  assert.ok(!isStorageFull(sqlite(5)), 'SQLITE_BUSY is something else');
  assert.ok(isStorageFull(Object.assign(new Error('could not extend file'), { code: '53100' })));
  // Adapters wrap driver errors: the cause counts.
  assert.ok(isStorageFull(new Error('writing the database failed', { cause: errno('ENOSPC') })));
  for (const other of [errno('EACCES'), errno('ENOENT'), new Error('x'), null, 'ENOSPC', 28]) {
    assert.ok(!isStorageFull(other), String(other));
  }
});

test('a full storage becomes STORAGE_FULL, with its cause', () => {
  const cause = errno('ENOSPC');
  const full = storageFullOr(cause);
  assert.ok(full instanceof AppError);
  assert.equal(full.code, 'STORAGE_FULL');
  assert.equal(full.message, STORAGE_FULL_MESSAGE);
  assert.equal(full.cause, cause, 'the cause is kept for the log');
  assert.equal(storageFullOr(full), full, 'not wrapped twice');
  const other = errno('EACCES');
  assert.equal(storageFullOr(other), other);
  const validation = new AppError('VALIDATION_FAILED', 'bad row');
  assert.equal(storageFullOr(validation), validation);
});
