import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type BlobListing, type BlobStore, listPages } from './blob-store.ts';

/** A store that only lists: `keys` in order, honouring `after` and `limit` as the port says. */
function listingOnly(keys: string[]): BlobStore & { calls: number } {
  const store = {
    calls: 0,
    async list(prefix: string, options: { after?: string; limit?: number } = {}): Promise<BlobListing[]> {
      store.calls++;
      return keys
        .filter((key) => key.startsWith(prefix) && (options.after === undefined || key > options.after))
        .slice(0, options.limit ?? 1000)
        .map((key) => ({ key, bytes: 1, modifiedAt: 0 }));
    },
  };
  return store as unknown as BlobStore & { calls: number };
}

async function pagesOf(store: BlobStore, prefix: string, size: number): Promise<string[][]> {
  const pages: string[][] = [];
  for await (const page of listPages(store, prefix, size)) pages.push(page.map((blob) => blob.key));
  return pages;
}

describe('listPages', () => {
  it('walks every blob of the prefix page by page, in key order', async () => {
    const store = listingOnly(['a/1', 'a/2', 'a/3', 'a/4', 'a/5', 'b/1']);
    assert.deepEqual(await pagesOf(store, 'a/', 2), [['a/1', 'a/2'], ['a/3', 'a/4'], ['a/5']]);
  });

  it('yields no empty page, and stops after a full last page with one more call', async () => {
    const store = listingOnly(['a/1', 'a/2', 'a/3', 'a/4']);
    assert.deepEqual(await pagesOf(store, 'a/', 2), [
      ['a/1', 'a/2'],
      ['a/3', 'a/4'],
    ]);
    assert.equal(store.calls, 3);
    assert.deepEqual(await pagesOf(listingOnly([]), 'a/', 2), []);
  });
});
