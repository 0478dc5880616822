/** One e-mail, already rendered. The sender (`From`) is the mailer's configuration, not the caller's. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /**
   * Stable for one notice (`job_….complete`): every retry of it carries the same Message-ID, so a
   * receiving system can drop a duplicate, and the outbox writes the same file again.
   */
  id: string;
}

/** Sends e-mail. Backends: `.eml` files in an outbox folder (embedded), SMTP. */
export interface Mailer {
  /**
   * Sends one message. Resolves once the message is handed over (file written, or accepted by the
   * SMTP server); rejects with a message safe to log (no password, e-mail addresses redacted).
   */
  send(message: MailMessage): Promise<void>;
  /** Releases connections; sends after close are not supported. */
  close(): Promise<void>;
  /** Removes partial messages older than `maxAgeMs` left by a crash mid-write; returns how many. */
  sweepTemporary?(maxAgeMs: number): Promise<number>;
}
