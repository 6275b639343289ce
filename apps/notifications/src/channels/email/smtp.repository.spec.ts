import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { NotificationsConfig } from '../../config/notifications.config';
import { classifySmtpError, SmtpRepository } from './smtp.repository';

describe('SMTP failures', () => {
  it('retries 4xx answers and connection failures, and gives up at once on 5xx (F12)', () => {
    expect(classifySmtpError(Object.assign(new Error('451 try later'), { responseCode: 451 })).permanent).toBe(false);
    expect(classifySmtpError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ESOCKET' })).permanent).toBe(false);
    expect(classifySmtpError(Object.assign(new Error('550 no such user'), { responseCode: 550 })).permanent).toBe(true);
  });

  it('keeps the server text out of the error: it may quote the address', () => {
    const error = classifySmtpError(Object.assign(new Error('550 5.1.1 <owner@example.test>: user unknown'), { responseCode: 550 }));
    expect(error.message).toBe('SMTP 550 (permanent)');
    expect(error.message).not.toContain('example.test');
  });
});

describe('the SMTP pool', () => {
  let sink: SMTPServer;
  let port: number;
  const connections: string[] = [];
  const accepted: string[] = [];

  beforeAll(async () => {
    sink = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      disableReverseLookup: true,
      logger: false,
      onConnect(session, callback) {
        connections.push(session.id);
        callback();
      },
      onData(stream, session, callback) {
        stream.resume();
        stream.on('end', () => {
          accepted.push(...session.envelope.rcptTo.map(({ address }) => address));
          callback();
        });
      },
    });
    await new Promise<void>((listening) => sink.listen(0, '127.0.0.1', listening));
    port = (sink.server.address() as AddressInfo).port;
  });

  afterAll(() => new Promise<void>((closed) => sink.close(closed)));

  it('keeps its connection past nodemailer’s 100 mails a connection, so no mail waits for a new handshake', async () => {
    const smtp = new SmtpRepository({ SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: 'Homing <no-reply@homing.test>' } as NotificationsConfig);
    try {
      const email = { subject: 'New message', html: '<p>Hi</p>', text: 'Hi' };
      // One after another, as a quiet worker sends them: one connection does them all.
      for (let index = 0; index < 120; index += 1) await smtp.send(`owner${index}@example.test`, email, `job-${index}`);
      expect(accepted).toHaveLength(120);
      expect(connections).toHaveLength(1);
    } finally {
      smtp.onModuleDestroy();
    }
  });
});
