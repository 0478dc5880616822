import { join, resolve } from 'node:path';
import { LocalFileDrop } from '../adapters/delivery/local-file-drop.ts';
import { SftpFileDrop } from '../adapters/delivery/sftp-file-drop.ts';
import { OutboxMailer } from '../adapters/mail/outbox-mailer.ts';
import { SmtpMailer } from '../adapters/mail/smtp-mailer.ts';
import type { Config } from '../config.ts';
import type { FileDrop } from '../domain/ports/file-drop.ts';
import type { Mailer } from '../domain/ports/mailer.ts';

/** The mailer MAIL selects: `.eml` files in the outbox folder, or SMTP. */
export function createMailer(config: Config, dataDir: string): Mailer {
  if (config.MAIL === 'outbox') {
    return new OutboxMailer({
      dir: config.MAIL_OUTBOX_DIR ?? join(dataDir, 'outbox'),
      from: config.MAIL_FROM,
    });
  }
  return new SmtpMailer({
    ...(config.SMTP_URL === undefined ? {} : { url: config.SMTP_URL }),
    ...(config.SMTP_HOST === undefined ? {} : { host: config.SMTP_HOST }),
    ...(config.SMTP_PORT === undefined ? {} : { port: config.SMTP_PORT }),
    ...(config.SMTP_USER === undefined ? {} : { user: config.SMTP_USER }),
    ...(config.SMTP_PASSWORD === undefined ? {} : { password: config.SMTP_PASSWORD }),
    tls: config.SMTP_TLS,
    rejectUnauthorized: config.SMTP_TLS_REJECT_UNAUTHORIZED,
    timeoutMs: config.SMTP_TIMEOUT_SECONDS * 1000,
    from: config.MAIL_FROM,
  });
}

/** The file drop of DELIVERY: the embedded local folder, or the one SFTP server. */
export function createFileDrop(config: Config, dataDir: string, log: SftpFileDropLog): FileDrop {
  if (config.DELIVERY === 'folder') return new LocalFileDrop(join(dataDir, 'files'));
  // loadConfig refuses DELIVERY=sftp without these.
  return new SftpFileDrop({
    host: config.SFTP_HOST!,
    port: config.SFTP_PORT,
    username: config.SFTP_USERNAME!,
    privateKeyFile: resolve(config.SFTP_PRIVATE_KEY_FILE!),
    root: config.SFTP_ROOT,
    hostKeySha256: config.SFTP_HOST_KEY_SHA256!,
    timeoutMs: config.SFTP_TIMEOUT_SECONDS * 1000,
    log,
  });
}

/** Where the SFTP drop writes its log lines. */
export type SftpFileDropLog = NonNullable<ConstructorParameters<typeof SftpFileDrop>[0]['log']>;
