import { z } from 'zod';
import { booleanParam, emailParam, filenameParam, nameParam, single } from './common.ts';

/** Query of `GET /service/smartmatch` (spec §2.4, clients.md). Unknown parameters are ignored. */
export const smartmatchQuerySchema = z
  .object({
    filename: filenameParam,
    webhook: single('webhook')
      .max(2048, 'webhook must be at most 2048 characters')
      .pipe(z.url({ protocol: /^https?$/, error: 'webhook must be a valid http or https URL' }))
      .optional(),
    include_email: booleanParam('include_email').optional(),
    include_landline: booleanParam('include_landline').optional(),
    include_wireless: booleanParam('include_wireless').optional(),
    include_voip: booleanParam('include_voip').optional(),
    max_matches: single('max_matches')
      .regex(/^\s*\d{1,3}\s*$/, 'max_matches must be an integer from 1 to 10')
      .transform(Number)
      .pipe(
        z
          .number()
          .min(1, 'max_matches must be an integer from 1 to 10')
          .max(10, 'max_matches must be an integer from 1 to 10'),
      )
      .optional(),
    format: single('format')
      .transform((value) => value.trim().toLowerCase())
      .pipe(z.enum(['csv', 'zip', 'gzip'], 'format must be one of csv, zip, gzip'))
      .optional(),
    search_radius: single('search_radius')
      .regex(/^\s*(\d+(\.\d*)?|\.\d+)\s*$/, 'search_radius must be a positive number of miles')
      .transform(Number)
      .pipe(
        z
          .number()
          .gt(0, 'search_radius must be a positive number of miles')
          .max(500, 'search_radius must be at most 500 miles'),
      )
      .optional(),
    notification_email: emailParam('notification_email').optional(),
    mbp_onboarding: booleanParam('mbp_onboarding').optional(),
    digital_audience_name: nameParam('digital_audience_name', 35).optional(),
    profile_id: single('profile_id')
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'profile_id must be 1-64 letters, digits, _, . or -')
      .optional(),
  })
  .superRefine(
    (query, ctx) => {
      if (query.mbp_onboarding === true && query.digital_audience_name === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['digital_audience_name'],
          message: 'digital_audience_name is required when mbp_onboarding is true',
        });
      }
    },
    { when: () => true },
  );

export type SmartmatchQuery = z.infer<typeof smartmatchQuerySchema>;

export const pollQuerySchema = z.object({ filename: filenameParam });

/** The body of every registration and poll answer. */
export const urlErrorBodySchema = z.object({
  url: z.string().nullable().describe('Presigned URL; empty or null when there is none'),
  error: z.string().nullable().describe('null on success, else "<Kind> Error: …"'),
  request_id: z.string().optional(),
});

const count = z.number().int().min(0);

export const pollBodySchema = urlErrorBodySchema.extend({
  status: z
    .enum(['registered', 'uploaded', 'processing', 'complete', 'failed', 'expired'])
    .optional()
    .describe(
      'registered: awaiting the upload; uploaded: waiting for a worker; processing: being matched; complete; failed; expired (no upload in time, replaced by a later registration, or deleted after retention)',
    ),
  progress: z
    .object({
      rows_matched: count.describe('rows of the list through matching so far (matched to a voter or not)'),
      rows_total: count
        .nullable()
        .describe("the list's rows; null until the job is complete (or split over a sharded file's workers)"),
      bytes_read: count.describe('bytes of the upload read by the matching so far'),
      bytes_total: count.nullable().describe("the upload's size; null before the upload"),
    })
    .optional()
    .describe('How far the job has got; recorded by the worker about once a second'),
  warnings: z
    .object({
      total: count,
      rows_skipped: count,
      by_kind: z.record(z.string(), count),
      first: z.array(z.string()),
    })
    .optional()
    .describe("A complete job's reader warnings: counts and line numbers, never values"),
});
