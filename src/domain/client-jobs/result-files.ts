/**
 * Where a list-matching job's results live in blob storage. Storage keys are built from the job
 * id only; the client's filename names the files it downloads.
 */

/**
 * The delivery archive: the `.zip` dropped in the client's `smartmatch` folder (result CSVs,
 * summary.json, summary.html). Written for every completed job, whatever its `format`.
 */
export const deliveryArchiveKey = (jobId: string): string => `results/${jobId}/delivery.zip`;

/** `tmc_ab12.csv` → `tmc_ab12`, `list.` → `list`: no doubled extension, no trailing dot. */
export function downloadBase(filename: string): string {
  const base = filename.replace(/\.csv$/i, '').replace(/\.+$/, '');
  return base === '' ? 'result' : base;
}

/**
 * The `voterbase_id`s of a job's best matches, one per line, written while it matches when it was
 * registered with `mbp_onboarding`: the media-buying audience is built from them afterwards.
 */
export const mediaBuyingIdsKey = (jobId: string): string => `work/${jobId}/mbp-ids.txt`;
/** The media buying platform's audience file, built from those ids. */
export const mediaBuyingFileKey = (jobId: string): string => `work/${jobId}/audience-mbp.csv`;

/** The delivery archive's file name in the client's folder: `<filename without .csv>.zip`. */
export const deliveryArchiveName = (filename: string): string => `${downloadBase(filename)}.zip`;
