/** What a presigned URL allows: one operation on one object of one job. */
export interface UrlGrant {
  op: 'put' | 'get';
  jobId: string;
  /** Object name within the job (`upload.csv`, `<filename>.csv.gz`, …). */
  name: string;
  /** Epoch seconds. */
  expiresAt: number;
  /** Upload size cap in bytes (put only). */
  maxBytes?: number;
}

/** Presigned URLs. Backends: HMAC-signed URLs served by the api (embedded). */
export interface UrlSigner {
  sign(grant: UrlGrant): string;
  /**
   * Checks a request against its URL; throws AppError URL_INVALID (tampered, expired, wrong
   * operation) and returns the grant when valid.
   */
  verify(
    request: { method: string; jobId: string; name: string; query: Record<string, unknown> },
    now: number,
  ): UrlGrant;
}
