import { readFileSync } from 'node:fs';
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { simpleParser } from 'mailparser';
import { Counter } from 'prom-client';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { InjectConfig } from '@homing/platform';
import type { MailRelayConfig } from '../config/mail-relay.config';
import { MailRelayService, type RelayTarget } from '../relay/mail-relay.service';
import { SmtpReply } from '../relay/smtp-reply';
import { ConnectionLimits } from './connection-limits';

const connectionLimits = new Counter({
  name: 'homing_relay_connection_limits_total',
  help: 'Connections the relay answered 421 for a limit: client (too many open from one client), mails (too many over one connection), lifetime (open too long)',
  labelNames: ['limit'],
});

/** Mails over this size are refused (`SIZE` is announced, so a polite sender does not even try). */
export const MAX_MAIL_BYTES = 256 * 1024;
// A mail goes to one conversation; a handful of recipients covers a finder copying a friend. More is a broadcast.
const MAX_RECIPIENTS = 5;

// The recipients accepted for the mail being received, by address. smtp-server keeps one session for a connection but
// makes a new envelope for each mail on it (after MAIL FROM, RSET, a finished mail): kept by envelope, one mail's
// recipients are never another's. Kept on the session, every later mail of a connection (senders' servers deliver
// several over one) went to the earlier mails' threads too, a stranger's posted as the owner of an earlier reply address.
const targetsOfMail = new WeakMap<SMTPServerSession['envelope'], Map<string, RelayTarget>>();
function targetsOf(session: SMTPServerSession): Map<string, RelayTarget> {
  let targets = targetsOfMail.get(session.envelope);
  if (!targets) targetsOfMail.set(session.envelope, (targets = new Map()));
  return targets;
}

/**
 * The relay's inbound SMTP server (smtp-server): no AUTH (it relays to nobody but the product's own addresses, so it
 * is no open relay), STARTTLS when a certificate is configured, `SIZE` 256 KB. Each recipient is checked at
 * `RCPT TO`, so unknown ones are refused before any data; the mail is parsed (mailparser) and handed to
 * MailRelayService, and nothing of it is kept. One client holds so many connections at once, a connection carries so
 * many mails, sits idle so long and stays open so long at all (RELAY_SMTP_*): past each, 421 and the sender comes back.
 */
@Injectable()
export class RelaySmtpServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RelaySmtpServer.name);
  private server?: SMTPServer;
  private readonly limits: ConnectionLimits;
  // Each connection's deadline (RELAY_SMTP_MAX_CONNECTION_SECONDS), and the connections whose mail is being decided:
  // one past its deadline then gets its answer first, as a sender whose 250 was cut off would send the mail again.
  private readonly deadlines = new WeakMap<SMTPServerSession, NodeJS.Timeout>();
  private readonly deciding = new WeakSet<SMTPServerSession>();
  private readonly expired = new WeakSet<SMTPServerSession>();

  constructor(
    private readonly relay: MailRelayService,
    @InjectConfig() private readonly config: MailRelayConfig,
  ) {
    this.limits = new ConnectionLimits(config.RELAY_DOMAIN, {
      connectionsPerClient: config.RELAY_SMTP_MAX_CONNECTIONS_PER_CLIENT,
      mailsPerConnection: config.RELAY_SMTP_MAX_MAILS_PER_CONNECTION,
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    const tls =
      this.config.RELAY_TLS_CERT_FILE && this.config.RELAY_TLS_KEY_FILE
        ? { cert: readFileSync(this.config.RELAY_TLS_CERT_FILE), key: readFileSync(this.config.RELAY_TLS_KEY_FILE) }
        : undefined;
    const server = new SMTPServer({
      name: this.config.RELAY_DOMAIN,
      banner: 'Homing mail relay',
      size: MAX_MAIL_BYTES,
      authOptional: true,
      disabledCommands: tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
      ...(tls ?? {}),
      disableReverseLookup: true,
      logger: false,
      maxClients: this.config.RELAY_SMTP_MAX_CLIENTS,
      // Idle: the client's turn and nothing came (smtp-server does not count the time it waits for these handlers).
      socketTimeout: this.config.RELAY_SMTP_IDLE_TIMEOUT_SECONDS * 1000,
      // At shutdown, how long connections may finish before they are cut.
      closeTimeout: 10_000,
      onConnect: (session, callback) => {
        const refused = this.limits.open(session);
        if (refused) {
          connectionLimits.inc({ limit: 'client' });
          return callback(refused);
        }
        const deadline = setTimeout(() => this.expire(session), this.config.RELAY_SMTP_MAX_CONNECTION_SECONDS * 1000);
        deadline.unref();
        this.deadlines.set(session, deadline);
        callback();
      },
      onClose: (session) => {
        this.limits.close(session);
        clearTimeout(this.deadlines.get(session));
      },
      onMailFrom: (_address, session, callback) => {
        const refused = this.limits.startMail(session);
        if (refused) connectionLimits.inc({ limit: 'mails' });
        callback(refused);
      },
      onRcptTo: (address, session, callback) => {
        const targets = targetsOf(session);
        // A recipient named twice is one (as smtp-server keeps `rcptTo`).
        const key = address.address.toLowerCase();
        if (!targets.has(key) && targets.size >= MAX_RECIPIENTS) return callback(new SmtpReply(452, '4.5.3 Too many recipients'));
        this.relay.acceptRecipient(address.address, session.remoteAddress).then(
          (target) => {
            targets.set(key, target);
            callback();
          },
          (error: Error) => callback(error),
        );
      },
      onData: (stream, session, callback) => {
        const answer = (error?: Error) => {
          this.deciding.delete(session);
          callback(error);
          // Past its deadline while its mail was decided: closed now that the answer is out.
          if (this.expired.has(session)) setImmediate(() => this.expire(session));
        };
        this.receive(stream, session).then(
          () => answer(),
          (error: Error) => answer(error instanceof SmtpReply ? error : new SmtpReply(451, '4.3.0 Temporary failure, please try again later')),
        );
      },
    });
    // A client that resets mid-message is reported here; it must not take the process down.
    server.on('error', (error) => this.logger.warn(`SMTP: ${error.message}`));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.config.RELAY_SMTP_PORT, this.config.RELAY_SMTP_HOST, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.logger.log(`SMTP on ${this.config.RELAY_SMTP_HOST}:${this.config.RELAY_SMTP_PORT} for @${this.config.RELAY_DOMAIN}${tls ? ' (STARTTLS)' : ''}`);
  }

  async onApplicationShutdown(): Promise<void> {
    // Stops taking connections; mails in flight finish (or their senders retry: nothing was acknowledged).
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** A connection past its deadline: 421 and closed, unless its mail is being decided (then once it is answered). */
  private expire(session: SMTPServerSession): void {
    this.expired.add(session);
    if (this.deciding.has(session)) return;
    const connection = [...(this.server?.connections ?? [])].find((candidate) => candidate.session === session);
    if (!connection) return;
    connectionLimits.inc({ limit: 'lifetime' });
    connection.send(421, `4.4.2 ${this.config.RELAY_DOMAIN} Connection open too long, please reconnect`);
  }

  private async receive(stream: SMTPServerDataStream, session: SMTPServerSession): Promise<void> {
    // Read whole: the sender check reads the bytes as sent (DKIM signs them), the parser the rest.
    const raw = await readAll(stream, MAX_MAIL_BYTES);
    this.deciding.add(session);
    // smtp-server says so once the stream has ended.
    if (stream.sizeExceeded) throw new SmtpReply(552, '5.3.4 Message too big: 256 KB at most');
    // A mail that cannot be read will not be readable on the next try either: refused for good, not retried.
    const parsed = await simpleParser(raw, { skipHtmlToText: false, skipTextToHtml: true, skipImageLinks: true }).catch(() => {
      throw new SmtpReply(550, '5.6.0 Message could not be read');
    });
    const mailFrom = session.envelope.mailFrom;
    const envelopeSender = mailFrom && mailFrom.address ? mailFrom.address : null;
    await this.relay.deliver(
      {
        raw,
        headers: parsed.headers,
        messageId: parsed.messageId,
        from: parsed.from?.value.find((mailbox) => mailbox.address)?.address,
        subject: parsed.subject,
        text: parsed.text,
        attachmentNames: parsed.attachments.map((attachment, index) => attachment.filename ?? `attachment ${index + 1}`),
      },
      envelopeSender,
      [...targetsOf(session).values()],
      session.remoteAddress,
    );
  }
}

/**
 * Every byte of a mail's DATA, read to its end (or the sender waits for an answer that never comes); past `maxBytes`
 * the rest is read and dropped: smtp-server passes it on, and the mail is refused as too big anyway.
 */
async function readAll(stream: SMTPServerDataStream, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (size > maxBytes) continue;
    chunks.push(chunk);
    size += chunk.length;
  }
  return Buffer.concat(chunks);
}
