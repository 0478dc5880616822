/** Sends webhook calls. Backends: HTTP with an SSRF guard. */
export interface WebhookSender {
  /**
   * POSTs `json` (already serialized, so that a signature over these exact bytes holds) to `url`
   * with `Content-Type: application/json` and the extra `headers`. Resolves on a 2xx answer;
   * rejects otherwise (network error, timeout, non-2xx, redirect, or a refused destination) with a
   * message safe to log.
   */
  postJson(url: string, json: string, headers?: Readonly<Record<string, string>>): Promise<void>;
}
