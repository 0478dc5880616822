/**
 * Which blobs a completed list-matching job writes, and what the poll downloads. Every job gets
 * the delivery archive (see result-files.ts); the poll download keeps the shape clients expect
 * per `format`: `csv` and `gzip` one CSV with every rank, `zip` the delivery archive itself (so
 * the zip a client polls and the zip in its folder are the same file).
 */
import type { OutputFormat } from './job-types.ts';
import { deliveryArchiveKey, deliveryArchiveName, downloadBase } from './result-files.ts';

export interface ResultLayout {
  /** Where the pipeline writes the CSV with every rank (plain), or null when nothing needs it. */
  everyRankCsv: string | null;
  /** Where the pipeline writes the best/additional split (max_matches > 1), or null. */
  split: { best: string; additional: string } | null;
  /** The archive's CSV entries, in archive order: entry name and the blob it copies. */
  archiveCsvs: { name: string; blob: string }[];
  archive: { key: string; name: string };
  /** `gzip` only: the gzip file made from everyRankCsv after the pipeline. */
  gzip: { from: string; key: string } | null;
  /** What poll downloads (the job's resultBlob and resultName). */
  poll: { key: string; name: string };
  /** Work blobs to delete once the job's files are written. */
  temporary: string[];
}

export function resultLayout(job: {
  id: string;
  filename: string;
  format: OutputFormat;
  maxMatches: number;
}): ResultLayout {
  const base = downloadBase(job.filename);
  const work = (name: string) => `work/${job.id}/${name}`;
  const archive = { key: deliveryArchiveKey(job.id), name: deliveryArchiveName(job.filename) };
  // With max_matches = 1 every row has one line (a couple row too: its better-scoring person),
  // so one CSV holds the best matches.
  const split = job.maxMatches > 1 ? { best: work('best.csv'), additional: work('additional.csv') } : null;
  const pollCsv = { key: `results/${job.id}/result.csv`, name: `${base}.csv` };
  const everyRankCsv =
    job.format === 'csv' ? pollCsv.key : job.format === 'gzip' || split === null ? work('result.csv') : null;
  const archiveCsvs =
    split === null
      ? [{ name: `${base}.csv`, blob: everyRankCsv! }]
      : [
          { name: `${base}_best.csv`, blob: split.best },
          { name: `${base}_additional.csv`, blob: split.additional },
        ];
  const gzip = job.format === 'gzip' ? { from: everyRankCsv!, key: `results/${job.id}/result.csv.gz` } : null;
  const poll =
    job.format === 'csv' ? pollCsv : gzip !== null ? { key: gzip.key, name: `${base}.csv.gz` } : archive;
  const temporary = [everyRankCsv, split?.best, split?.additional].filter(
    (key): key is string => key?.startsWith(`work/${job.id}/`) === true,
  );
  return { everyRankCsv, split, archiveCsvs, archive, gzip, poll, temporary };
}
