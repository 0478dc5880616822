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

/** The delivery archive's file name in the client's folder: `<filename without .csv>.zip`. */
export const deliveryArchiveName = (filename: string): string => `${downloadBase(filename)}.zip`;
