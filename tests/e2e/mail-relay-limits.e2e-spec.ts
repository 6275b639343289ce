import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import type { Message } from '@homing/contracts';
import { expectEventually } from '@homing/testing';
import { apiExchange } from '../support/api';
import { ownerWithItem, tagAddress } from '../support/relay';
import { plainMail } from '../support/smtp-client';
import { stackForSuite } from '../support/stack';

// The relay's limits on one client, over real SMTP on the loopback, with small limits so that the test is quick:
// connections held at once from one address, mails over one connection, and how long a connection may sit idle or
// be kept alive by a trickle of commands. The defaults (10 connections, 100 mails, 60 s idle, 10 minutes) are the
// config's (apps/mail-relay/src/config/mail-relay.config.spec.ts).
const LIMITS = { connections: 3, mails: 3, idleSeconds: 3, lifetimeSeconds: 8 };

/** One SMTP connection read line by line, closed or not: a refusal at connect is the first reply, not a greeting. */
class SmtpConnection {
  readonly lines: string[] = [];
  readonly closed: Promise<void>;
  private readonly socket: Socket;
  private buffer = '';
  private read = 0;
  private waiting?: () => void;

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.setEncoding('utf8');
    this.socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      let end: number;
      while ((end = this.buffer.indexOf('\r\n')) >= 0) {
        this.lines.push(this.buffer.slice(0, end));
        this.buffer = this.buffer.slice(end + 2);
      }
      this.waiting?.();
    });
    this.socket.on('error', () => undefined);
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve()));
  }

  /** The next whole reply (its last line, "NNN text"), or '' when the connection closed first. */
  async reply(timeoutMs = 15_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (this.read < this.lines.length) {
        const line = this.lines[this.read++];
        if (/^\d{3}( |$)/.test(line)) return line;
      }
      if (this.socket.destroyed || Date.now() > deadline) return '';
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 100);
        this.waiting = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  command(line: string): Promise<string> {
    this.socket.write(`${line}\r\n`);
    return this.reply();
  }

  async data(message: string): Promise<string> {
    const go = await this.command('DATA');
    if (!go.startsWith('354')) return go;
    this.socket.write(`${message.replace(/\r?\n/g, '\r\n').replace(/^\./gm, '..')}\r\n.\r\n`);
    return this.reply();
  }

  /** A line without waiting for its reply (a sender keeping the connection alive). */
  write(line: string): void {
    if (!this.socket.destroyed) this.socket.write(`${line}\r\n`);
  }

  async quit(): Promise<void> {
    this.write('QUIT');
    this.socket.end();
    await this.closed;
  }
}

describe('the mail relay: limits on one client', () => {
  const stack = stackForSuite({
    relay: true,
    env: {
      'mail-relay': {
        RELAY_SMTP_MAX_CONNECTIONS_PER_CLIENT: String(LIMITS.connections),
        RELAY_SMTP_MAX_MAILS_PER_CONNECTION: String(LIMITS.mails),
        RELAY_SMTP_IDLE_TIMEOUT_SECONDS: String(LIMITS.idleSeconds),
        RELAY_SMTP_MAX_CONNECTION_SECONDS: String(LIMITS.lifetimeSeconds),
      },
    },
  });
  const open = async () => {
    const connection = new SmtpConnection(stack.relaySmtpPort as number);
    return { connection, greeting: await connection.reply() };
  };
  const contents = async (code: string, token: string) => (await apiExchange<Message[]>(stack, 'GET', `/items/${code}/messages`, { token })).body.map((message) => message.content);

  it('refuses a connection past the client’s limit with 421 at connect, and takes one again once another closed', async () => {
    const held = await Promise.all(Array.from({ length: LIMITS.connections }, () => open()));
    try {
      expect(held.map(({ greeting }) => greeting.slice(0, 3))).toEqual(Array(LIMITS.connections).fill('220'));
      const extra = await open();
      expect(extra.greeting).toMatch(/^421 4\.7\.0 relay\.localhost Too many connections from your address/);
      // Closed by the relay: the sender tries again later.
      await extra.connection.closed;

      await held.pop()?.connection.quit();
      const again = await expectEventually(async () => {
        const next = await open();
        if (!next.greeting.startsWith('220')) throw new Error(`not taken again: ${next.greeting}`);
        return next;
      });
      held.push(again);
    } finally {
      await Promise.all(held.map(({ connection }) => connection.quit()));
    }
  });

  it('answers 421 to the mail past the connection’s limit and closes it, and the sender delivers it over a new one', async () => {
    const owner = await ownerWithItem(stack);
    const finder = `finder-${randomUUID()}@example.test`;
    const to = tagAddress(owner.code);
    const mail = (index: number) => plainMail({ From: finder, To: to, Subject: 'Found', 'Message-ID': `<${randomUUID()}@example.test>` }, `Mail number ${index}.`);
    const send = async (connection: SmtpConnection, index: number) => {
      const mailFrom = await connection.command(`MAIL FROM:<${finder}>`);
      if (!mailFrom.startsWith('250')) return mailFrom;
      expect(await connection.command(`RCPT TO:<${to}>`)).toMatch(/^250/);
      return connection.data(mail(index));
    };

    const { connection, greeting } = await open();
    expect(greeting).toMatch(/^220/);
    expect(await connection.command('EHLO sender.example.test')).toMatch(/^250/);
    const answers: string[] = [];
    for (let index = 1; index <= LIMITS.mails + 1; index++) answers.push(await send(connection, index));
    expect(answers.slice(0, LIMITS.mails).map((answer) => answer.slice(0, 3))).toEqual(Array(LIMITS.mails).fill('250'));
    expect(answers[LIMITS.mails]).toMatch(/^421 4\.7\.0 relay\.localhost Too many mails on one connection, please reconnect/);
    await connection.closed;

    // A sending server reconnects and delivers the mail it could not.
    const next = await open();
    try {
      expect(await next.connection.command('EHLO sender.example.test')).toMatch(/^250/);
      expect(await send(next.connection, LIMITS.mails + 1)).toMatch(/^250/);
    } finally {
      await next.connection.quit();
    }
    await expectEventually(async () => expect(await contents(owner.code, owner.token)).toEqual(Array.from({ length: LIMITS.mails + 1 }, (_, index) => `Mail number ${index + 1}.`)));
  });

  it('closes a connection that sits idle with 421', async () => {
    const { connection, greeting } = await open();
    expect(greeting).toMatch(/^220/);
    expect(await connection.command('EHLO sender.example.test')).toMatch(/^250/);
    const started = Date.now();
    expect(await connection.reply((LIMITS.idleSeconds + 10) * 1000)).toMatch(/^421 /);
    await connection.closed;
    expect(Date.now() - started).toBeGreaterThanOrEqual(LIMITS.idleSeconds * 1000 - 500);
  });

  it('closes a connection kept open by a trickle of commands with 421 once its time is up', async () => {
    const { connection, greeting } = await open();
    const opened = Date.now();
    expect(greeting).toMatch(/^220/);
    expect(await connection.command('EHLO sender.example.test')).toMatch(/^250/);
    // A NOOP a second: never idle for long, and never done.
    const trickle = setInterval(() => connection.write('NOOP'), 1000);
    try {
      await Promise.race([connection.closed, new Promise((resolve) => setTimeout(resolve, (LIMITS.lifetimeSeconds + 10) * 1000))]);
    } finally {
      clearInterval(trickle);
    }
    expect(connection.lines.at(-1)).toMatch(/^421 4\.4\.2 relay\.localhost Connection open too long, please reconnect/);
    expect(Date.now() - opened).toBeGreaterThanOrEqual(LIMITS.lifetimeSeconds * 1000 - 500);
  });
});
