import { loadConfig } from '../config.ts';
import { compose, type Services } from '../start/compose.ts';

/** Lazily composed services, so that `--help` touches no data directory. */
export interface CliContext {
  services(): Promise<Services>;
  close(): Promise<void>;
}

export function createCliContext(env: Record<string, string | undefined> = process.env): CliContext {
  let services: Promise<Services> | null = null;
  return {
    services() {
      services ??= compose(loadConfig(env));
      return services;
    },
    async close() {
      if (services !== null) await (await services).close();
    },
  };
}
