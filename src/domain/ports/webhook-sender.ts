/** Sends webhook calls. Backends: HTTP with an SSRF guard. */
export interface WebhookSender {
  /**
   * POSTs `body` as JSON to `url`. Resolves on a 2xx answer; rejects otherwise (network error,
   * timeout, non-2xx, redirect, or a refused destination) with a message safe to log.
   */
  postJson(url: string, body: unknown): Promise<void>;
}
