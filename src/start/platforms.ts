import { resolve } from 'node:path';
import {
  type FileDropPlatform,
  mediaBuyingPlatform,
  politicalDsp,
} from '../adapters/platforms/file-drop-profiles.ts';
import { HttpFileDropAudiences, tokenSource } from '../adapters/platforms/http-file-drop-audiences.ts';
import { MetaSocialAudiences, tokenFileReader } from '../adapters/platforms/meta-social-audiences.ts';
import type { Config } from '../config.ts';
import type { FileDropAudiences } from '../domain/ports/file-drop-audiences.ts';

/**
 * The ad platform adapters the config sets up (the composition root's part: the adapters
 * themselves take their settings, never the config).
 */

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

type MetaConfig = Pick<
  Config,
  | 'META_AD_ACCOUNT_ID'
  | 'META_ACCESS_TOKEN'
  | 'META_ACCESS_TOKEN_FILE'
  | 'META_GRAPH_URL'
  | 'META_API_VERSION'
  | 'META_TIMEOUT_SECONDS'
>;

/**
 * The social platform configured by the META_* variables, or null when the operator has not set
 * it up (loadConfig ensures an ad account comes with a version and exactly one token source).
 */
export function metaSocialAudiencesFromConfig(config: MetaConfig): MetaSocialAudiences | null {
  if (config.META_AD_ACCOUNT_ID === undefined) return null;
  const inline = config.META_ACCESS_TOKEN;
  return new MetaSocialAudiences({
    graphUrl: config.META_GRAPH_URL,
    apiVersion: config.META_API_VERSION!,
    adAccountId: config.META_AD_ACCOUNT_ID,
    accessToken: inline !== undefined ? () => inline : tokenFileReader(config.META_ACCESS_TOKEN_FILE!),
    timeoutMs: config.META_TIMEOUT_SECONDS * 1000,
  });
}
