import type { Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { redactEmails } from '../../domain/notices/redact.ts';
import type { Mailer, MailMessage } from '../../domain/ports/mailer.ts';
import { messageIdOf } from './mime-message.ts';

/**
 * How the connection is secured: `implicit` TLS from the first byte (smtps, usually port 465);
 * `starttls` upgrades a plain connection and refuses to send if the server cannot (usually 587);
 * `opportunistic` upgrades when offered; `none` never upgrades (a relay on localhost).
 */
export type SmtpTls = 'implicit' | 'starttls' | 'opportunistic' | 'none';

export interface SmtpOptions {
  /** `smtp://user:password@host:port` or `smtps://…`; takes the place of host, port, user and password. */
  url?: string;
  host?: string;
  port?: number;
  user?: string;
  password?: string;
  tls: SmtpTls;
  /** False only for a server with a self-signed certificate the operator trusts. */
  rejectUnauthorized: boolean;
  timeoutMs: number;
  from: string;
}

/**
 * Sends through an SMTP server with nodemailer, loaded on the first send. One connection per
 * message: notices are few, and a pooled connection that went stale would only add a failure mode.
 * Errors are rethrown with the SMTP reply code and text but with e-mail addresses redacted and
 * without the password (nodemailer's own error objects are not passed on: they can carry the
 * envelope).
 */
export class SmtpMailer implements Mailer {
  private readonly options: SmtpOptions;
  private transport: Promise<Transporter<SMTPTransport.SentMessageInfo>> | null = null;

  constructor(options: SmtpOptions) {
    this.options = options;
  }

  /** See {@link Mailer.send}. */
  async send(message: MailMessage): Promise<void> {
    if (this.transport === null) {
      this.transport = this.createTransport();
      // A failed load must not stick: the next attempt tries again.
      this.transport.catch(() => {
        this.transport = null;
      });
    }
    const transport = await this.transport;
    try {
      await transport.sendMail({
        from: this.options.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
        messageId: messageIdOf(message, this.options.from),
      });
    } catch (error) {
      throw new Error(`SMTP send failed: ${describe(error, this.secret())}`);
    }
  }

  /** Closes the transport, if one was made. */
  async close(): Promise<void> {
    const transport = await this.transport?.catch(() => null);
    transport?.close();
  }

  /** The password, wherever it was given, so that no error text can repeat it. */
  private secret(): string | undefined {
    if (this.options.url !== undefined) {
      const password = decodeURIComponent(new URL(this.options.url).password);
      return password === '' ? undefined : password;
    }
    return this.options.password;
  }

  private async createTransport(): Promise<Transporter<SMTPTransport.SentMessageInfo>> {
    const { default: nodemailer } = await import('nodemailer');
    const o = this.options;
    const implicit = o.tls === 'implicit' || o.url?.startsWith('smtps:') === true;
    const base: SMTPTransport.Options = {
      secure: implicit,
      requireTLS: !implicit && o.tls === 'starttls',
      ignoreTLS: !implicit && o.tls === 'none',
      tls: { rejectUnauthorized: o.rejectUnauthorized },
      connectionTimeout: o.timeoutMs,
      greetingTimeout: o.timeoutMs,
      socketTimeout: o.timeoutMs,
      // nodemailer's own logger would print envelopes (addresses) at debug level.
      logger: false,
      debug: false,
    };
    if (o.url !== undefined) {
      const url = new URL(o.url);
      return nodemailer.createTransport({
        ...base,
        host: url.hostname,
        port: url.port === '' ? (implicit ? 465 : 587) : Number(url.port),
        ...(url.username === ''
          ? {}
          : {
              auth: {
                user: decodeURIComponent(url.username),
                pass: decodeURIComponent(url.password),
              },
            }),
      });
    }
    return nodemailer.createTransport({
      ...base,
      host: o.host,
      port: o.port ?? (implicit ? 465 : 587),
      ...(o.user === undefined ? {} : { auth: { user: o.user, pass: o.password ?? '' } }),
    });
  }
}

/** Error text safe to log and store: reply code and message, addresses redacted, password removed. */
function describe(error: unknown, password: string | undefined): string {
  const e = error as { message?: string; code?: string; responseCode?: number };
  let text = `${e.code ?? 'error'}${e.responseCode === undefined ? '' : ` ${e.responseCode}`}: ${e.message ?? String(error)}`;
  if (password !== undefined && password !== '') text = text.split(password).join('***');
  return redactEmails(text.replace(/\/\/[^/@\s]*:[^/@\s]*@/g, '//***@'));
}
