import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  AppError,
  errorCodes,
  errorKind,
  isStorageFull,
  publicMessage,
  STORAGE_FULL_MESSAGE,
  storageFullOr,
  UNEXPECTED_MESSAGE,
} from './errors.ts';
import { PlatformError } from './ports/platform-error.ts';

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

test('publicMessage: the kind of the code, then the message', () => {
  const texts = Object.fromEntries(errorCodes.map((code) => [code, publicMessage(new AppError(code, 'm'))]));
  assert.deepEqual(texts, {
    VALIDATION_FAILED: 'Validation Error: m',
    UNAUTHORIZED: 'Authorization Error: m',
    FORBIDDEN: 'Authorization Error: m',
    URL_INVALID: 'Authorization Error: m',
    NOT_FOUND: 'Validation Error: m',
    METHOD_NOT_ALLOWED: 'Validation Error: m',
    CONFLICT: 'Validation Error: m',
    PAYLOAD_TOO_LARGE: 'Validation Error: m',
    REQUEST_TIMEOUT: 'Validation Error: m',
    RATE_LIMITED: 'Rate Limit Error: m',
    UNAVAILABLE: 'Internal Error: m',
    STORAGE_FULL: 'Internal Error: m',
    INTERNAL: 'Internal Error: m',
  });
  for (const code of errorCodes) assert.ok(texts[code]!.startsWith(`${errorKind(code)}: `), code);
  assert.equal(
    publicMessage(storageFullOr(errno('ENOSPC'))),
    "Internal Error: the service's storage is full",
  );
});

test("publicMessage: a platform's refusal is a Platform Error; anything else says nothing of itself", () => {
  assert.equal(
    publicMessage(new PlatformError('fatal', 'the audience is too small')),
    'Platform Error: the audience is too small',
  );
  for (const other of [new Error('EACCES: /data/blobs/uploads/x.csv'), 'text', null, undefined]) {
    assert.equal(publicMessage(other), `Internal Error: ${UNEXPECTED_MESSAGE}`);
  }
});
