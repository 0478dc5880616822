import { z } from 'zod';

/**
 * Query-string building blocks. Values arrive as strings (a repeated parameter as an array,
 * which is refused). Messages are the text after "Validation Error: ".
 */
export const single = (name: string) =>
  z
    .string({
      error: (issue) => (issue.input === undefined ? `${name} is required` : `${name} must be given once`),
    })
    // A CR/LF (`%0D%0A`) or other control character is never part of a valid value, and stored
    // it could split a header or a log line later, or disguise what a reader sees: C0, DEL and
    // C1 (NEL U+0085) are Cc; the line and paragraph separators U+2028/U+2029 are Zl/Zp; bidi
    // embeddings, overrides and isolates, zero-width characters, the BOM and the other invisible
    // format characters (U+00AD, U+061C, U+2060-U+2064, tags) are Cf.
    .regex(/^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]*$/u, {
      error: `${name} must not contain control characters`,
      abort: true,
    });

/** Booleans as real clients send them: True/False, true/false, 1/0 (any letter case). */
export const booleanParam = (name: string) =>
  single(name)
    // Spelled out rather than with the `i` flag, which a JSON Schema pattern cannot carry: the
    // OpenAPI file then accepts the True/False that Python clients send, as the service does.
    .regex(
      /^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|1|0)$/,
      `${name} must be true or false (True/False, true/false, 1/0)`,
    )
    .transform((value) => value === '1' || value.toLowerCase() === 'true');

/** clients.md 4: `[A-Za-z0-9_.-]`, 1-45 characters, not starting with `.` or `-`, no `..`. */
export const filenameParam = single('filename')
  .min(1, 'filename is required')
  .max(45, 'filename must be at most 45 characters')
  .regex(
    /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/,
    'filename may hold only letters, digits, _, . and -, and must not start with . or -',
  )
  .refine((value) => !value.includes('..'), 'filename must not contain ..');

export const emailParam = (name: string) =>
  single(name)
    .max(254, `${name} must be at most 254 characters`)
    .pipe(z.email(`${name} must be a valid e-mail address`));

export const nameParam = (name: string, max: number) =>
  single(name).regex(
    new RegExp(`^[A-Za-z0-9_]{1,${max}}$`),
    `${name} must be 1-${max} letters, digits or underscores`,
  );

/** A social-platform ad account id: digits, optionally with the `act_` prefix. */
export const adAccountParam = (name: string) =>
  single(name).regex(
    /^(act_)?\d{1,20}$/,
    `${name} must be an ad account id (digits, optionally prefixed act_)`,
  );

/** Turns a failed parse into one readable sentence listing every problem. */
export function describeIssues(error: z.ZodError): string {
  const messages = error.issues.map((issue) => issue.message);
  return [...new Set(messages)].join('; ');
}
