import { shardRouter } from '../list-matching/stages/route.ts';
import type { MatchIndex } from '../matching/index/match-index.ts';
import type { MatchInput } from '../matching/matcher.ts';
import { normalizeInput } from '../matching/normalize/person.ts';
import {
  createProbabilisticMatcher,
  type ProbabilisticMatcher,
  type ProbabilisticMatcherOptions,
  randomPairU,
} from '../matching/probabilistic-matcher.ts';
import { buildModel, type FellegiSunterModel, priorM } from '../matching/score/fellegi-sunter.ts';
import { nearShards, routeRow, type ShardMap, statelessIds } from '../voters/shard-map.ts';
import type { VoterSnapshot, VoterStore } from '../voters/voter-snapshot.ts';

/**
 * The model lookups score with. A single lookup has no list to fit m and the match rate on, so
 * it takes the matcher's prior m (PRIOR_M, what a list gets when its sample is too small to fit)
 * with this voter file's own random-pair u, and a conservative match rate (`matchRate`, default
 * 0.3: three in ten of the people asked for are in the file; a list of 70% voters fits about 0.7).
 * A lower match rate lowers every posterior score, most of all those of weak evidence.
 */
export function lookupModel(index: MatchIndex, matchRate: number): FellegiSunterModel {
  return buildModel(priorM(), randomPairU(index), matchRate / (1 - matchRate), 'prior');
}

/** The matchers of one part of the voter file (the whole file, or one shard of it). */
export interface LookupPart {
  snapshot: VoterSnapshot;
  index: MatchIndex;
  /** Its position in the shard map (0 when the file is not sharded). */
  shard: number;
  /** Candidates at or above `LookupMatchSettings.candidateScore`, selected as in a list. */
  select: LookupMatcher;
  /** The best candidates whatever their score or evidence (radius search ranks them itself). */
  rank: LookupMatcher;
}

/** What the lookups ask of a matcher. */
export type LookupMatcher = Pick<ProbabilisticMatcher, 'matchBatch'>;

/**
 * Threads a version's lookups match on (the api's LOOKUP_THREADS; ThreadedMatcherFactory), its
 * own: the api's thread then only answers HTTP and reads values, and a newly published version
 * is opened on threads of its own while the ones in use go on answering.
 */
export interface LookupThreads {
  /** A matcher whose matching runs on the threads (once `opened` resolved for the file). */
  create(voters: VoterSnapshot, options: Partial<ProbabilisticMatcherOptions>): ProbabilisticMatcher;
  /** Opens the file on the threads; resolves when every thread holds it. */
  opened(voters: VoterSnapshot): Promise<void>;
  close(): Promise<void>;
}

/**
 * Where the lookups of each version are matched: the threads a version of `shards` files (1: an
 * unsharded file) opens on, its own or shared with the version it replaces (then closing the
 * version lets them drop its files), and what to let go when the api stops.
 */
export interface LookupThreadSource {
  forVersion(shards: number): LookupThreads;
  close(): Promise<void>;
}

export interface LookupMatchSettings {
  /** The match rate of the lookup model (see lookupModel). */
  matchRate: number;
  /** Lowest score of a candidate the selecting matcher returns (the lookups decide from there). */
  candidateScore: number;
}

/** One version of the voter file as the lookups read it; shards are opened when first asked. */
export class LookupVoterFile {
  readonly version: string;
  /** State → `YYYYMMDD` of that state's voter file (see statesUpdated). */
  readonly statesUpdated: Readonly<Record<string, string>>;
  readonly map: ShardMap | null;
  private readonly snapshot: VoterSnapshot;
  private readonly open: (version: string) => Promise<VoterSnapshot | null>;
  private readonly settings: LookupMatchSettings;
  private readonly threads: LookupThreads | null;
  private readonly parts = new Map<number, Promise<LookupPart>>();

  /** The lowest score the selecting matcher keeps (LookupMatchSettings.candidateScore). */
  get candidateScore(): number {
    return this.settings.candidateScore;
  }

  private constructor(
    snapshot: VoterSnapshot,
    statesUpdated: Record<string, string>,
    open: (version: string) => Promise<VoterSnapshot | null>,
    settings: LookupMatchSettings,
    threads: LookupThreads | null,
  ) {
    this.version = snapshot.version;
    this.snapshot = snapshot;
    this.statesUpdated = Object.freeze(statesUpdated);
    this.map = snapshot.shardMap ?? null;
    this.open = open;
    this.settings = settings;
    this.threads = threads;
  }

  /**
   * The version ready to answer: an unsharded file's matchers built (and its u estimated, when
   * its import stored none, and the file opened on `threads`) before any request reads it.
   * `importedAt`: the version's import time. `threads`: where its matching runs (null: on the
   * calling thread); closed with the version (close).
   */
  static async load(
    snapshot: VoterSnapshot,
    importedAt: string | null,
    open: (version: string) => Promise<VoterSnapshot | null>,
    settings: LookupMatchSettings,
    threads: LookupThreads | null = null,
  ): Promise<LookupVoterFile> {
    const map = snapshot.shardMap ?? null;
    const states = map === null ? statesOf(snapshot) : map.shards.map((shard) => shard.state);
    const date = (importedAt ?? new Date().toISOString()).slice(0, 10).replaceAll('-', '');
    const updated: Record<string, string> = {};
    for (const state of [...new Set(states)].filter((s) => s !== '' && s !== 'none').sort())
      updated[state] = date;
    const loaded = new LookupVoterFile(snapshot, updated, open, settings, threads);
    try {
      if (loaded.map === null) await loaded.part(0);
    } catch (error) {
      await loaded.close();
      throw error;
    }
    return loaded;
  }

  /** Lets the version's threads go (a request still running on it is then matched here). */
  async close(): Promise<void> {
    await this.threads?.close();
  }

  /** The shards of the file (1 when it is not sharded). */
  get shards(): number {
    return this.map === null ? 1 : this.map.shards.length;
  }

  /** The shards opened so far (requests open only those they can find a person in). */
  openedShards(): number[] {
    return [...this.parts.keys()].sort((a, b) => a - b);
  }

  /** The part with this position, opened (and its matchers built) on first use. */
  part(shard: number): Promise<LookupPart> {
    let part = this.parts.get(shard);
    if (part === undefined) {
      part = this.build(shard);
      this.parts.set(shard, part);
      // A failed open is tried again by the next request, not remembered.
      part.catch(() => this.parts.delete(shard));
    }
    return part;
  }

  /**
   * The parts a row can find its person in: the whole file, or the shards routeRow gives for it
   * (its state, its ZIP's states, its phones', e-mails' and ids' shards, its coordinates).
   */
  async partsFor(row: MatchInput, asOf: Date): Promise<LookupPart[]> {
    if (this.map === null) return [await this.part(0)];
    const normalized = row.normalized ?? normalizeInput(row.fields, asOf);
    const route = shardRouter(this.map, this.snapshot.shardDirectory ?? null).route(row, normalized, asOf);
    return await Promise.all(route.shards.map((shard) => this.part(shard)));
  }

  /** The shards whose voters may lie within `miles` of a point (ListRouter.near). */
  near(lat: number, lon: number, miles: number): number[] {
    return this.map === null ? [0] : nearShards(this.map, lat, lon, miles);
  }

  /** The parts an id can be in: its state's shards, or (stateless ids) the directory's. */
  async partsForId(idName: string, idValue: string, state: string | null): Promise<LookupPart[]> {
    if (this.map === null) return [await this.part(0)];
    const voterbase = idName === 'voterbase_id' ? idValue : '';
    const track = idName === 'exact_track' ? idValue : '';
    const route = routeRow(
      this.map,
      {
        ...(state === null ? {} : { state }),
        voterbaseId: voterbase,
        ids: statelessIds(voterbase, track),
        searchableAnywhere: false,
      },
      this.snapshot.shardDirectory ?? null,
    );
    return await Promise.all(route.shards.map((shard) => this.part(shard)));
  }

  private async build(shard: number): Promise<LookupPart> {
    let snapshot = this.snapshot;
    if (this.map !== null) {
      const version = this.map.shards[shard]?.version;
      const opened = version === undefined ? null : await this.open(version);
      if (opened === null) throw new Error(`shard ${shard} of voter file ${this.version} is missing`);
      snapshot = opened;
    }
    const index = snapshot.matchIndex;
    if (index === null) throw new Error(`voter file ${snapshot.version} has no match index`);
    const model = lookupModel(index, this.settings.matchRate);
    const options = { model, thresholdScore: this.settings.candidateScore };
    const rankOptions = { model, thresholdScore: 0, rankOnly: true };
    const threads = await this.openedThreads(snapshot);
    // Matched here: counted before the first lookup needs them (the threads count their own).
    if (threads === null) await index.countInSteps(() => new Promise((resolve) => setImmediate(resolve)));
    const create = (settings: Partial<ProbabilisticMatcherOptions>): LookupMatcher => {
      const here = createProbabilisticMatcher(snapshot, index, settings);
      return threads === null ? here : threadedOrHere(threads.create(snapshot, settings), here);
    };
    return { snapshot, index, shard, select: create(options), rank: create(rankOptions) };
  }

  /** The threads holding `snapshot`, or null when there are none or they cannot open it. */
  private async openedThreads(snapshot: VoterSnapshot): Promise<LookupThreads | null> {
    if (this.threads === null) return null;
    try {
      await this.threads.opened(snapshot);
      return this.threads;
    } catch {
      // Let go (the version replaced meanwhile), or a thread died opening it: matched here.
      return null;
    }
  }
}

/**
 * A matcher on the threads that matches here instead once they fail it (a thread died, or the
 * version's threads were let go while a request still held it): a lookup never fails for them.
 */
function threadedOrHere(threaded: ProbabilisticMatcher, here: ProbabilisticMatcher): LookupMatcher {
  let failed = false;
  return {
    async matchBatch(rows, options) {
      if (!failed) {
        try {
          return await threaded.matchBatch(rows, options);
        } catch {
          failed = true;
        }
      }
      return await here.matchBatch(rows, options);
    },
  };
}

/** The states an unsharded voter file's voters are filed under. */
function statesOf(snapshot: VoterSnapshot): string[] {
  const states = snapshot.matchIndex?.data.dictionaries.state;
  if (states === undefined) return [];
  const found: string[] = [];
  for (let id = 1; id < states.size; id++) if (states.count(id) > 0) found.push(states.value(id));
  return found;
}

/**
 * The voter file the lookups answer from: the store's current version, checked again every
 * `refreshMs`. A newly published version is loaded beside the one in use and swapped in once
 * ready; a request holds the version it started with to its end, so a swap drops none.
 */
export class CurrentLookupFile {
  private readonly voters: VoterStore;
  private readonly settings: LookupMatchSettings;
  private readonly refreshMs: number;
  private readonly threads: LookupThreadSource | null;
  private readonly retireAfterMs: number;
  private readonly onSwap: () => void;
  private current: LookupVoterFile | null = null;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private checking: Promise<LookupVoterFile | null> | null = null;
  /** Replaced versions, each with the timer that lets its threads go. */
  private readonly retiring = new Map<NodeJS.Timeout, LookupVoterFile>();
  private closed = false;

  constructor(
    voters: VoterStore,
    settings: LookupMatchSettings,
    options: {
      /** How often the store's current version is checked. */
      refreshMs: number;
      /** Where versions are matched (absent: on the calling thread). */
      threads?: LookupThreadSource;
      /** How long a replaced version stays for the requests that hold it (default a minute). */
      retireAfterMs?: number;
      /** Told each time the lookups switch to a version (metrics). */
      onSwap?: () => void;
    },
  ) {
    this.voters = voters;
    this.settings = settings;
    this.refreshMs = options.refreshMs;
    this.threads = options.threads ?? null;
    this.retireAfterMs = options.retireAfterMs ?? RETIRE_AFTER_MS;
    this.onSwap = options.onSwap ?? (() => {});
  }

  /** Lets every version's threads go (the api stopping). */
  async close(): Promise<void> {
    this.closed = true;
    for (const [timer, version] of this.retiring) {
      clearTimeout(timer);
      await version.close();
    }
    this.retiring.clear();
    await this.checking?.catch(() => {});
    const current = this.current;
    this.current = null;
    await current?.close();
    await this.threads?.close();
  }

  /** The version to answer from (null: no voter file imported yet). */
  async get(now = Date.now()): Promise<LookupVoterFile | null> {
    if (now - this.checkedAt >= this.refreshMs && this.checking === null) {
      this.checkedAt = now;
      this.checking = this.check().finally(() => {
        this.checking = null;
      });
      // Only the first request waits for the load; later ones keep the version in use meanwhile.
      if (this.current === null) return await this.checking;
      this.checking.catch(() => {});
    }
    if (this.current === null && this.checking !== null) return await this.checking;
    return this.current;
  }

  /**
   * Loads the store's current version ahead of the first lookup (an api starting). With none
   * imported yet, the first lookup looks again rather than waiting out the refresh interval.
   */
  async warm(): Promise<void> {
    const file = await this.get();
    if (file === null && this.current === null && this.checking === null) {
      this.checkedAt = Number.NEGATIVE_INFINITY;
    }
  }

  /** Loads the store's current version when it is not the one in use, then swaps. */
  async check(): Promise<LookupVoterFile | null> {
    const snapshot = await this.voters.current();
    if (snapshot === null) return this.current;
    if (this.current?.version === snapshot.version) return this.current;
    const stats = await this.voters.stats();
    const importedAt = stats?.version === snapshot.version ? stats.importedAt : null;
    const threads = this.threads?.forVersion(snapshot.shardMap?.shards.length ?? 1) ?? null;
    const loaded = await LookupVoterFile.load(
      snapshot,
      importedAt,
      (version) => this.voters.open(version),
      this.settings,
      threads,
    );
    if (this.closed) {
      await loaded.close();
      return null;
    }
    const previous = this.current;
    this.current = loaded;
    this.onSwap();
    if (previous !== null) this.retire(previous);
    return loaded;
  }

  /**
   * A replaced version's threads go once the requests that took it have had time to finish (a
   * request holds its version to its end; a lookup takes milliseconds).
   */
  private retire(version: LookupVoterFile): void {
    const timer = setTimeout(() => {
      this.retiring.delete(timer);
      void version.close();
    }, this.retireAfterMs);
    timer.unref();
    this.retiring.set(timer, version);
  }
}

/** How long a replaced version's threads stay after the swap. */
const RETIRE_AFTER_MS = 60_000;
