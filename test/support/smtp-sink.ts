import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { freePort } from './test-service.ts';

export interface ReceivedMail {
  envelopeTo: string[];
  parsed: ParsedMail;
  /** The session was upgraded with STARTTLS before the message was sent. */
  secure: boolean;
  /** The user the client authenticated as, if any. */
  user: string | null;
}

export interface SmtpSink {
  port: number;
  received: ReceivedMail[];
  /** Stops listening (connections are refused: the mail server is down). */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
}

/**
 * A real SMTP server in this process on 127.0.0.1 (smtp-server): STARTTLS with the library's
 * self-signed certificate, login required with `user`/`password`; every accepted message is
 * parsed with mailparser.
 */
export async function startSmtpSink(auth: { user: string; password: string }): Promise<SmtpSink> {
  const port = await freePort();
  const received: ReceivedMail[] = [];
  let server: SMTPServer | null = null;
  const start = async () => {
    server = new SMTPServer({
      logger: false,
      authMethods: ['PLAIN', 'LOGIN'],
      onAuth(credentials, _session, callback) {
        if (credentials.username === auth.user && credentials.password === auth.password) {
          callback(null, { user: credentials.username });
        } else {
          callback(new Error('invalid credentials'));
        }
      },
      onData(stream, session, callback) {
        simpleParser(stream).then(
          (parsed) => {
            received.push({
              envelopeTo: session.envelope.rcptTo.map((r) => r.address),
              parsed,
              secure: session.secure,
              user: (session.user as string | undefined) ?? null,
            });
            callback();
          },
          (error: Error) => callback(error),
        );
      },
    });
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(port, '127.0.0.1', () => resolve());
    });
  };
  await start();
  return {
    port,
    received,
    start,
    stop: () =>
      new Promise<void>((resolve) => {
        const s = server;
        server = null;
        if (s === null) return resolve();
        s.close(() => resolve());
      }),
  };
}
