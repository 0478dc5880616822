import { resolve } from 'node:path';
import type { FsVoterStoreOptions } from '../adapters/voters/fs-voter-store.ts';
import { type Config, loadConfig } from '../config.ts';
import type { VoterStore } from '../domain/voters/voter-snapshot.ts';
import type { Services } from '../start/compose.ts';

/** Lazily composed services, so that `--help` touches no data directory. */
export interface CliContext {
  services(): Promise<Services>;
  /**
   * The config and the voter store alone, for a command that only reads voter files (`match`):
   * with files under DATA_DIR it opens no database and loads none of the service; in S3 mode it
   * is the composed service's (the bucket's store).
   */
  voters(hooks?: Pick<FsVoterStoreOptions, 'onEvict'>): Promise<{ config: Config; voters: VoterStore }>;
  close(): Promise<void>;
}

export function createCliContext(env: Record<string, string | undefined> = process.env): CliContext {
  let services: Promise<Services> | null = null;
  return {
    services() {
      // The composition (databases, storage, every service) loads only for a command that uses it.
      services ??= import('../start/compose.ts').then(({ compose }) => compose(loadConfig(env)));
      return services;
    },
    async voters(hooks = {}) {
      const config = loadConfig(env);
      if (config.S3_BUCKET === undefined) {
        // Loaded here: the voter store's modules are most of a process that only submits a list.
        const { localVoterStore } = await import('../start/voter-stores.ts');
        return { config, voters: localVoterStore(config, resolve(config.DATA_DIR), hooks) };
      }
      const composed = await this.services();
      return { config: composed.config, voters: composed.voters };
    },
    async close() {
      if (services !== null) await (await services).close();
    },
  };
}
