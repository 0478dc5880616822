import { resolve } from 'node:path';
import type { Config } from '../../config.ts';
import type { FileDropAudiences } from '../../domain/ports/file-drop-audiences.ts';
import { type FileDropPlatform, mediaBuyingPlatform, politicalDsp } from './file-drop-profiles.ts';
import { HttpFileDropAudiences, tokenSource } from './http-file-drop-audiences.ts';

/** The configured file-drop platforms; null where its URL is not set. */
export interface FileDropPlatforms {
  politicaldsp: FileDropAudiences | null;
  mbp: FileDropAudiences | null;
}

type PlatformConfig = Pick<
  Config,
  | 'POLITICALDSP_URL'
  | 'POLITICALDSP_TOKEN'
  | 'POLITICALDSP_TOKEN_FILE'
  | 'MBP_URL'
  | 'MBP_TOKEN'
  | 'MBP_TOKEN_FILE'
  | 'FILE_DROP_TIMEOUT_SECONDS'
>;

/**
 * Builds the adapters for the composition root. loadConfig already made sure a set URL comes with
 * exactly one of token and token file; a token file is resolved now (the working directory may
 * change) and read at each call.
 */
export function fileDropPlatformsFromConfig(config: PlatformConfig): FileDropPlatforms {
  const build = (
    platform: FileDropPlatform,
    url: string | undefined,
    token: string | undefined,
    file: string | undefined,
  ): FileDropAudiences | null =>
    url === undefined
      ? null
      : new HttpFileDropAudiences({
          platform,
          baseUrl: url,
          token: tokenSource({ token, file: file === undefined ? undefined : resolve(file) }),
          timeoutMs: config.FILE_DROP_TIMEOUT_SECONDS * 1000,
        });
  return {
    politicaldsp: build(
      politicalDsp,
      config.POLITICALDSP_URL,
      config.POLITICALDSP_TOKEN,
      config.POLITICALDSP_TOKEN_FILE,
    ),
    mbp: build(mediaBuyingPlatform, config.MBP_URL, config.MBP_TOKEN, config.MBP_TOKEN_FILE),
  };
}
