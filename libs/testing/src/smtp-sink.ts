import PostalMime from 'postal-mime';
import { SMTPServer } from 'smtp-server';
import { expectEventually } from './eventually';

/** One e-mail as the sink received it, parsed as a mail reader would. */
export interface ReceivedMail {
  to: string[];
  from: string;
  subject: string;
  html: string;
  text: string;
  messageId: string;
  headers: Array<{ key: string; value: string }>;
  raw: string;
  /** When the sink accepted it (ms since the epoch): latency figures use it. */
  receivedAt: number;
}

/**
 * A real SMTP server on a free port that keeps what it receives (`smtp-server`, parsed with `postal-mime`). It can
 * answer the next messages with an SMTP error (451, 550 …) to show retries and refusals.
 */
export class SmtpSink {
  readonly received: ReceivedMail[] = [];
  /** Message-IDs of the messages answered with an error, in order. */
  readonly refused: Array<{ messageId: string; responseCode: number }> = [];
  private readonly answers: number[] = [];
  private holds = 0;
  private readonly held: Array<() => void> = [];
  private readonly closedSessions = new Set<string>();
  private server?: SMTPServer;
  private port = 0;
  /** Connections that failed mid-conversation (a sender that died); none of their messages was accepted. */
  connectionErrors = 0;

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    const server = new SMTPServer({
      authOptional: true,
      // Plain SMTP on loopback: nodemailer would otherwise try STARTTLS with the sink's self-signed certificate.
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onClose: (session) => {
        this.closedSessions.add(session.id);
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks);
          const code = this.answers.shift();
          const answer = () => this.answer(raw, code, session.id, callback);
          if (this.holds > 0) {
            this.holds -= 1;
            this.held.push(answer);
          } else answer();
        });
      },
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    // A sender killed in the middle of a message (the fault tests SIGKILL notifications) resets its connection, and
    // smtp-server reports that as the server's 'error': without a listener it would throw in the test process. The
    // message was never accepted, so there is nothing to record.
    server.on('error', () => {
      this.connectionErrors += 1;
    });
    this.port = (server.server.address() as { port: number }).port;
    return this;
  }

  /** Answers one message: refuses it with `code`, or accepts it unless its sender hung up before the answer. */
  private answer(raw: Buffer, code: number | undefined, sessionId: string, callback: (error?: Error | null) => void): void {
    PostalMime.parse(raw).then(
      (mail) => {
        const messageId = mail.messageId ?? '';
        if (code !== undefined) {
          this.refused.push({ messageId, responseCode: code });
          callback(Object.assign(new Error(code >= 500 ? 'Mailbox unavailable' : 'Try again later'), { responseCode: code }));
          return;
        }
        // A sender that hung up before the answer never saw it accepted: a real server would not deliver it.
        if (this.closedSessions.has(sessionId)) return;
        this.received.push({
          to: (mail.to ?? []).map((address) => ('address' in address ? (address.address ?? '') : '')),
          from: mail.from && 'address' in mail.from ? (mail.from.address ?? '') : '',
          subject: mail.subject ?? '',
          html: mail.html ?? '',
          text: mail.text ?? '',
          messageId,
          headers: mail.headers.map(({ key, value }) => ({ key, value })),
          raw: raw.toString('utf8'),
          receivedAt: Date.now(),
        });
        callback();
      },
      (error: Error) => callback(error),
    );
  }

  /** Answers the next `times` messages with this SMTP code instead of accepting them. */
  answerNext(responseCode: number, times = 1): void {
    for (let i = 0; i < times; i += 1) this.answers.push(responseCode);
  }

  /** Receives the next `times` messages but keeps the sender waiting for its answer until `release()`. */
  holdNext(times = 1): void {
    this.holds += times;
  }

  /** How many messages are held unanswered. */
  get heldCount(): number {
    return this.held.length;
  }

  /** Answers the held messages and holds no more. */
  releaseAll(): void {
    this.holds = 0;
    this.release();
  }

  /** Answers the held messages. */
  release(): void {
    for (const answer of this.held.splice(0)) answer();
  }

  /** The e-mails received for an address. */
  mailsTo(address: string): ReceivedMail[] {
    return this.received.filter((mail) => mail.to.some((to) => to.toLowerCase() === address.toLowerCase()));
  }

  /** Waits until `count` e-mails for an address have arrived, and returns them. */
  async waitForMails(address: string, count = 1, timeoutMs = 20_000): Promise<ReceivedMail[]> {
    return expectEventually(
      () => {
        const mails = this.mailsTo(address);
        if (mails.length < count) throw new Error(`${mails.length} of ${count} e-mails to ${address} arrived`);
        return mails;
      },
      { timeoutMs },
    );
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** The first link in a mail's text that starts with `prefix`. */
export function linkIn(mail: ReceivedMail, prefix: string): string {
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`${escaped}[^\\s<>"]*`).exec(mail.text);
  if (!match) throw new Error(`no link starting with ${prefix} in the e-mail "${mail.subject}"`);
  return match[0];
}
