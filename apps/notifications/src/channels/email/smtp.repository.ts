import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import nodemailer, { type Transporter } from 'nodemailer';
import { InjectConfig } from '@homing/platform';
import type { NotificationsConfig } from '../../config/notifications.config';
import type { RenderedEmail } from './email-renderer';

/** How an SMTP hand-over ended when it did not: `temporary` (4xx, connection trouble) is retried, `permanent` (5xx) not. */
export class SmtpRefusedError extends Error {
  constructor(
    readonly permanent: boolean,
    readonly responseCode: number | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'SmtpRefusedError';
  }
}

/** Nodemailer over `SMTP_URL`, pooled: connections are reused across jobs instead of one handshake per e-mail. */
@Injectable()
export class SmtpRepository implements OnModuleDestroy {
  private readonly transporter: Transporter;

  constructor(@InjectConfig() private readonly config: NotificationsConfig) {
    this.transporter = nodemailer.createTransport({
      url: config.SMTP_URL,
      pool: true,
      maxConnections: 5,
      // A connection is kept for as long as the server keeps it, not retired after nodemailer's default of 100 mails:
      // each retirement held the mails queued behind it for the pool's 150 ms pause plus a new handshake (TCP, TLS,
      // EHLO, AUTH, and an MTA's greeting pause: smtp-server's is 100 ms), B3's slowest mails (docs/benchmarks.md,
      // stop 73). A server that ends a session itself is met with a new connection; a mail it cut off is sent again.
      maxMessages: Infinity,
      // A hung server must not hold a job past its lock: fail and retry instead.
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    });
  }

  /**
   * Hands one e-mail over, with the relay's reply address when it is about a conversation. The Message-ID is derived
   * from the job id, so a resend after a crash is recognisable.
   */
  async send(to: string, email: RenderedEmail, jobId: string, replyTo?: string): Promise<void> {
    try {
      await this.transporter.sendMail({
        from: this.config.MAIL_FROM,
        to,
        // A mail about a conversation: the recipient's reply goes to the relay, as their message in it.
        ...(replyTo ? { replyTo } : {}),
        subject: email.subject,
        html: email.html,
        text: email.text,
        messageId: `<${jobId}@homing>`,
        // Transactional mail: no auto-replies.
        headers: { 'Auto-Submitted': 'auto-generated' },
      });
    } catch (error) {
      throw classifySmtpError(error);
    }
  }

  onModuleDestroy(): void {
    this.transporter.close();
  }
}

/**
 * 5xx answers are permanent (the address does not exist, the message is refused): retrying cannot help. 4xx answers
 * and connection failures are temporary. The message keeps only the code and nodemailer's error code: an SMTP
 * server's text may quote the address.
 */
export function classifySmtpError(error: unknown): SmtpRefusedError {
  const responseCode = error instanceof Object && 'responseCode' in error ? error.responseCode : undefined;
  const code = error instanceof Object && 'code' in error ? error.code : undefined;
  const numeric = typeof responseCode === 'number' ? responseCode : undefined;
  const permanent = numeric !== undefined && numeric >= 500 && numeric < 600;
  const what = numeric !== undefined ? `SMTP ${numeric}` : `SMTP ${typeof code === 'string' ? code : 'connection failure'}`;
  return new SmtpRefusedError(permanent, numeric, `${what} (${permanent ? 'permanent' : 'temporary'})`);
}
