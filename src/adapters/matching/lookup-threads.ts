import type { LookupThreadSource, LookupThreads } from '../../domain/lookups/lookup-voter-file.ts';
import type { VoterSnapshot } from '../../domain/voters/voter-snapshot.ts';
import { ThreadedMatcherFactory } from './threaded-matcher-factory.ts';

/**
 * The api's lookup threads (LOOKUP_THREADS), kept from one voter file version to the next: a newly
 * published version is opened on the threads already answering (their code compiled and warm; its
 * dictionaries decoded in steps between their lookups: match-thread.worker.ts) rather than on new
 * ones, which spent about half a second of a core starting beside the lookups being answered.
 * A version closed lets the threads drop its files. The threads hold two versions of up to
 * `shards` files each (the first version's); a version of more files gets threads of its own,
 * closed with it.
 */
export class SharedLookupThreads implements LookupThreadSource {
  readonly #threads: number;
  /** The kept threads, and the files they hold at once. */
  #shared: { factory: ThreadedMatcherFactory; files: number } | null = null;
  #closed = false;

  constructor(threads: number) {
    this.#threads = threads;
  }

  forVersion(shards: number): LookupThreads {
    // Two versions at once (the one in use, the one replacing it), 4 files at least: heaps of
    // 512 MB, two 10M-voter files' dictionaries on each thread.
    if (this.#shared === null && !this.#closed) {
      const files = Math.max(4, 2 * shards);
      this.#shared = { factory: threadsFor(this.#threads, files), files };
    }
    if (this.#shared !== null && 2 * shards <= this.#shared.files)
      return versionOn(this.#shared.factory, false);
    // More than fit beside another version (or asked after the api stopped): its own, closed with it.
    return versionOn(threadsFor(this.#threads, shards), true);
  }

  async close(): Promise<void> {
    this.#closed = true;
    const shared = this.#shared;
    this.#shared = null;
    await shared?.factory.close();
  }

  /** The shared threads (for tests and metrics). */
  get factory(): ThreadedMatcherFactory | null {
    return this.#shared?.factory ?? null;
  }
}

/** Threads that hold `files` voter files at once (at least 2: their heaps are sized by it). */
const threadsFor = (threads: number, files: number) =>
  new ThreadedMatcherFactory(threads, { sourcesKept: Math.max(2, files) });

/** One version's use of `factory`: closing it drops the version's files, or (`owned`) the threads. */
function versionOn(factory: ThreadedMatcherFactory, owned: boolean): LookupThreads {
  const opened = new Set<VoterSnapshot>();
  return {
    create: (voters, options) => factory.create(voters, options),
    async opened(voters) {
      opened.add(voters);
      await factory.opened(voters);
    },
    async close() {
      if (owned) {
        await factory.close();
        return;
      }
      for (const voters of opened) factory.release(voters);
      opened.clear();
    },
  };
}
