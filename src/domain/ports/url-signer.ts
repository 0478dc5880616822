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
  /** The stored object a get grant serves (the job's result blob), for signers that address objects directly. */
  blob?: string;
}

/**
 * Presigned URLs. Backends: HMAC-signed URLs served by the api (embedded), native SigV4 URLs of
 * the S3-compatible store (scaled out).
 */
export interface UrlSigner {
  sign(grant: UrlGrant): Promise<string>;
}

/** A signer whose URLs the api serves itself, so it also checks them. */
export interface VerifyingUrlSigner extends UrlSigner {
  /**
   * Checks a request against its URL; throws AppError URL_INVALID (tampered, expired, wrong
   * operation) and returns the grant when valid.
   */
  verify(
    request: {
      method: string;
      jobId: string;
      name: string;
      /** The request target as it arrived (path and query, not decoded): only its canonical form verifies. */
      url: string;
    },
    now: number,
  ): UrlGrant;
}
