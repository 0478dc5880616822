import { z } from 'zod';
import { booleanParam, single } from './common.ts';

/**
 * Queries of the person and voter lookups (clients.md 25-29). Values arrive as strings; a list
 * (phones, emails) as the parameter repeated or comma-separated. Unknown parameters are ignored.
 * Messages are the text after "Validation Error: " and never repeat a value (they may be logged).
 */

/** A text value of at most `max` characters; a trailing `*` only where `wildcard` allows it. */
const text = (name: string, max: number, wildcard = false) =>
  single(name)
    .transform((value) => value.trim())
    .pipe(
      z
        .string()
        .max(max, `${name} must be at most ${max} characters`)
        .refine((value) => !value.startsWith('*'), `${name} must not start with the wildcard *`)
        .refine(
          (value) => wildcard || !value.includes('*'),
          `${name} takes no wildcard (* is allowed at the end of dob, zip_code, city, street_name, street_number)`,
        )
        .refine(
          (value) => !value.slice(0, -1).includes('*'),
          `${name} may hold the wildcard * only as its last character`,
        ),
    );

const required = (name: string, max: number) =>
  text(name, max).refine((value) => value !== '', `${name} is required`);

const decimal = (name: string, min: number, max: number, what: string) =>
  single(name)
    .regex(/^\s*-?(\d{1,12}(\.\d{0,12})?|\.\d{1,12})\s*$/, `${name} must be ${what}`)
    .transform(Number)
    .pipe(z.number().min(min, `${name} must be ${what}`).max(max, `${name} must be ${what}`));

const integer = (name: string, min: number, max: number) =>
  single(name)
    .regex(/^\s*\d{1,6}\s*$/, `${name} must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .pipe(
      z
        .number()
        .min(min, `${name} must be a whole number from ${min} to ${max}`)
        .max(max, `${name} must be a whole number from ${min} to ${max}`),
    );

const profileId = single('profile_id')
  .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'profile_id must be 1-64 letters, digits, _, . or -')
  .optional();

/** 2-letter state code. */
const state = (name: string) =>
  single(name)
    .transform((value) => value.trim().toUpperCase())
    .pipe(z.string().regex(/^[A-Z]{2}$/, `${name} must be a two-letter state code`));

/** `YYYYMMDD`, or a prefix of it followed by `*` (`1961*`, `196104*`). */
const dob = single('dob')
  .transform((value) => value.trim())
  .pipe(
    z
      .string()
      .regex(
        /^(\d{8}|\d{4}\*|\d{6}\*)$/,
        'dob must be YYYYMMDD, or a year (YYYY*) or year and month (YYYYMM*) followed by *',
      ),
  );

/** `GET /voter/voter-registration-check` (clients.md 25). */
export const registrationCheckSchema = z.object({
  first_name: required('first_name', 50),
  last_name: required('last_name', 50),
  state: state('state'),
  street_number: text('street_number', 20, true).optional(),
  street_name: text('street_name', 100, true).optional(),
  city: text('city', 50, true).optional(),
  zip_code: text('zip_code', 10, true)
    .refine((value) => /^(\d{0,5}\*|\d{5}(-?\d{4})?|)$/.test(value), 'zip_code must be a 5-digit ZIP')
    .optional(),
  age: integer('age', 18, 120).optional(),
  dob: dob.optional(),
  phone: text('phone', 30).optional(),
  email: text('email', 254).optional(),
  unparsed_full_address: text('unparsed_full_address', 200).optional(),
  profile_id: profileId,
});
export type RegistrationCheckQuery = z.infer<typeof registrationCheckSchema>;

export const SEARCH_ID_TYPES = [
  'voterbase',
  'exacttrack',
  'phone',
  'email',
  'smartvan',
  'votebuilder',
  'voter',
  'household',
] as const;
export type SearchIdType = (typeof SEARCH_ID_TYPES)[number];
const NEEDS_STATE: readonly SearchIdType[] = ['smartvan', 'votebuilder', 'voter'];

/** `GET /person/data-enhance` (clients.md 26). */
export const dataEnhanceSchema = z
  .object({
    search_id: required('search_id', 100),
    search_id_type: single('search_id_type')
      .transform((value) => value.trim().toLowerCase())
      .pipe(z.enum(SEARCH_ID_TYPES, `search_id_type must be one of ${SEARCH_ID_TYPES.join(', ')}`))
      .optional(),
    state: state('state').optional(),
    profile_id: profileId,
  })
  .superRefine(
    (query, ctx) => {
      const type = query.search_id_type ?? 'voterbase';
      if (NEEDS_STATE.includes(type) && query.state === undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['state'],
          message: `state is required for search_id_type ${type}`,
        });
    },
    { when: () => true },
  );
export type DataEnhanceQuery = z.infer<typeof dataEnhanceSchema>;

export const RADIUS_UNITS = { miles: 1, kilometers: 0.621371, meters: 0.000621371, feet: 1 / 5280 } as const;
export type RadiusUnit = keyof typeof RADIUS_UNITS;
/** The widest radius a search may ask for, in miles (clients.md 27). */
export const MAX_RADIUS_SEARCH_MILES = 120;

/** `GET /person/radius-search` (clients.md 27). */
export const radiusSearchSchema = z
  .object({
    first_name: required('first_name', 50),
    last_name: required('last_name', 50),
    middle_name: text('middle_name', 50).optional(),
    name_suffix: text('name_suffix', 10).optional(),
    latitude: decimal('latitude', -90, 90, 'a latitude from -90 to 90').optional(),
    longitude: decimal('longitude', -180, 180, 'a longitude from -180 to 180').optional(),
    address: text('address', 200).optional(),
    address_type: single('address_type')
      .transform((value) => value.trim().toLowerCase())
      .pipe(z.literal('reg', 'address_type must be reg (the registration address)'))
      .optional(),
    radius_size: decimal('radius_size', 0, 1e9, 'a positive number')
      .refine((value) => value > 0, 'radius_size must be a positive number')
      .optional(),
    radius_unit: single('radius_unit')
      .transform((value) => value.trim().toLowerCase())
      .pipe(
        z.enum(
          ['miles', 'kilometers', 'meters', 'feet'],
          'radius_unit must be miles, kilometers, meters or feet',
        ),
      )
      .optional(),
    max_results: integer('max_results', 0, 100).optional(),
    gender: single('gender')
      .transform((value) => value.trim().toLowerCase())
      .pipe(z.enum(['m', 'f', 'u', 'a'], 'gender must be m, f, u or a'))
      .optional(),
    age_min: integer('age_min', 0, 120).optional(),
    age_max: integer('age_max', 0, 120).optional(),
    composite_score_min: integer('composite_score_min', 1, 100).optional(),
    composite_score_max: integer('composite_score_max', 1, 100).optional(),
    last_name_exact: booleanParam('last_name_exact').optional(),
    last_name_is_prefix: booleanParam('last_name_is_prefix').optional(),
    last_name_prefix_length: integer('last_name_prefix_length', 3, 10).optional(),
    profile_id: profileId,
  })
  .superRefine(
    (query, ctx) => {
      const issue = (path: string, message: string) =>
        ctx.addIssue({ code: 'custom', path: [path], message });
      const point = query.latitude !== undefined || query.longitude !== undefined;
      if (point && (query.latitude === undefined || query.longitude === undefined))
        issue('latitude', 'latitude and longitude are given together');
      if (!point && (query.address === undefined || query.address === ''))
        issue('latitude', 'latitude and longitude, or an address, are required');
      const miles = (query.radius_size ?? 10) * RADIUS_UNITS[query.radius_unit ?? 'miles'];
      if (miles > MAX_RADIUS_SEARCH_MILES + 1e-9)
        issue('radius_size', `the radius may be at most ${MAX_RADIUS_SEARCH_MILES} miles`);
      if (query.age_min !== undefined && query.age_max !== undefined && query.age_min > query.age_max)
        issue('age_min', 'age_min must not exceed age_max');
      if (
        query.composite_score_min !== undefined &&
        query.composite_score_max !== undefined &&
        query.composite_score_min > query.composite_score_max
      )
        issue('composite_score_min', 'composite_score_min must not exceed composite_score_max');
    },
    { when: () => true },
  );
export type RadiusSearchQuery = z.infer<typeof radiusSearchSchema>;

/** Most phones of one phone search, most e-mail addresses of one e-mail search (clients.md 28-29). */
export const MAX_PHONES = 500;
export const MAX_EMAILS = 200;

/**
 * A list parameter: repeated (`phones=1&phones=2`), comma-separated, or both. At most `max`
 * values of at most `each` characters; the raw query is bounded by the HTTP layer's 16 KB line.
 */
const list = (name: string, max: number, each: number) =>
  z
    .union([z.string(), z.array(z.string())], { error: `${name} is required` })
    .transform((value) =>
      (Array.isArray(value) ? value : [value])
        .flatMap((part) => part.split(','))
        .map((part) => part.trim())
        .filter((part) => part !== ''),
    )
    .pipe(
      z
        .array(
          z
            .string()
            .max(each, `each of ${name} must be at most ${each} characters`)
            .regex(/^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]*$/u, `${name} must not contain control characters`),
        )
        .min(1, `${name} is required`)
        .max(max, `at most ${max} ${name} per request`),
    );

/** `GET /person/phone-search` (clients.md 28). */
export const phoneSearchSchema = z.object({
  phones: list('phones', MAX_PHONES, 30),
  profile_id: profileId,
});
export type PhoneSearchQuery = z.infer<typeof phoneSearchSchema>;

/** `GET /person/email-search` (clients.md 29). */
export const emailSearchSchema = z.object({
  emails: list('emails', MAX_EMAILS, 254),
  match_type: single('match_type')
    .transform((value) => value.trim().toUpperCase())
    .pipe(z.enum(['I', 'H'], 'match_type must be I (individual) or H (household)'))
    .optional(),
  profile_id: profileId,
});
export type EmailSearchQuery = z.infer<typeof emailSearchSchema>;
