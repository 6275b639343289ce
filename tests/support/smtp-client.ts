import { connect, type Socket } from 'node:net';

/** The answers of one SMTP conversation: each command's reply code, `data` the reply to the message's end. */
export interface SmtpConversation {
  mailFrom: number;
  rcptTo: number[];
  /** The whole reply to each RCPT TO, as the sender's user would read it in a bounce. */
  rcptReplies: string[];
  /** Absent when no recipient was accepted (the message was never sent). */
  data?: number;
  /** Every reply line the server sent, for a failing test to show. */
  transcript: string[];
}

/**
 * Sends one message over plain SMTP, command by command, as a sending mail server would (EHLO, MAIL FROM, RCPT TO
 * for each recipient, DATA when one was accepted), and answers every reply code: the relay's refusals (550 at RCPT
 * TO, 552 for a big message) are what its tests look at, which a mail library would turn into one error.
 * `mailFrom` '' is the null sender of bounces. `localAddress` is the sending host's address: any of 127.0.0.0/8 on
 * Linux, where the whole block is the loopback (127.0.0.1 when absent), so a test can send as several hosts.
 */
export async function smtpSend(port: number, envelope: { mailFrom: string; rcptTo: string[] }, message: string, { localAddress }: { localAddress?: string } = {}): Promise<SmtpConversation> {
  const socket = connect({ port, host: '127.0.0.1', ...(localAddress ? { localAddress } : {}) });
  socket.setEncoding('utf8');
  const transcript: string[] = [];
  const replies = replyReader(socket, transcript);
  try {
    expectCode(await replies.next(), 220, transcript);
    socket.write('EHLO sender.example.test\r\n');
    expectCode(await replies.next(), 250, transcript);
    socket.write(`MAIL FROM:<${envelope.mailFrom}>\r\n`);
    const mailFrom = await replies.next();
    const rcptTo: number[] = [];
    const rcptReplies: string[] = [];
    for (const recipient of envelope.rcptTo) {
      socket.write(`RCPT TO:<${recipient}>\r\n`);
      rcptTo.push(await replies.next());
      rcptReplies.push(transcript.at(-1) ?? '');
    }
    let data: number | undefined;
    if (rcptTo.some((code) => code === 250)) {
      socket.write('DATA\r\n');
      expectCode(await replies.next(), 354, transcript);
      // Dot-stuffing: a line that starts with "." gets another.
      const body = message.replace(/\r?\n/g, '\r\n').replace(/^\./gm, '..');
      socket.write(`${body}\r\n.\r\n`);
      data = await replies.next();
    }
    socket.write('QUIT\r\n');
    return { mailFrom, rcptTo, rcptReplies, data, transcript };
  } finally {
    socket.end();
  }
}

/**
 * One SMTP connection kept open, command by command, as a sending server that delivers several mails over it does:
 * `command` answers the whole last reply line, `data` sends a message after DATA and answers the reply to its end.
 */
export async function smtpSession(port: number): Promise<{ command(line: string): Promise<string>; data(message: string): Promise<string>; close(): void }> {
  const socket = connect(port, '127.0.0.1');
  socket.setEncoding('utf8');
  const transcript: string[] = [];
  const replies = replyReader(socket, transcript);
  const lastReply = async () => {
    await replies.next();
    return transcript.at(-1) ?? '';
  };
  expectCode(await replies.next(), 220, transcript);
  const command = (line: string) => {
    socket.write(`${line}\r\n`);
    return lastReply();
  };
  expectCode(Number((await command('EHLO sender.example.test')).slice(0, 3)), 250, transcript);
  return {
    command,
    async data(message: string) {
      const go = await command('DATA');
      if (!go.startsWith('354')) return go;
      socket.write(`${message.replace(/\r?\n/g, '\r\n').replace(/^\./gm, '..')}\r\n.\r\n`);
      return lastReply();
    },
    close: () => void socket.end('QUIT\r\n'),
  };
}

function expectCode(code: number, expected: number, transcript: string[]): void {
  if (code !== expected) throw new Error(`SMTP answered ${code}, not ${expected}:\n${transcript.join('\n')}`);
}

/** Reads whole replies (a multi-line reply ends at "NNN " rather than "NNN-") and answers each one's code. */
function replyReader(socket: Socket, transcript: string[]): { next(): Promise<number> } {
  let buffer = '';
  const waiting: Array<(code: number) => void> = [];
  const ready: number[] = [];
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    let end: number;
    while ((end = buffer.indexOf('\r\n')) >= 0) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      transcript.push(line);
      if (/^\d{3} /.test(line) || /^\d{3}$/.test(line)) {
        const code = Number(line.slice(0, 3));
        const resolve = waiting.shift();
        if (resolve) resolve(code);
        else ready.push(code);
      }
    }
  });
  return {
    next: () =>
      new Promise<number>((resolve, reject) => {
        const code = ready.shift();
        if (code !== undefined) return resolve(code);
        const timer = setTimeout(() => reject(new Error(`no SMTP reply in 15 s:\n${transcript.join('\n')}`)), 15_000);
        waiting.push((value) => {
          clearTimeout(timer);
          resolve(value);
        });
      }),
  };
}

/** A plain-text mail as a mail program writes one. */
export function plainMail(headers: Record<string, string>, text: string): string {
  const lines = Object.entries({ 'MIME-Version': '1.0', 'Content-Type': 'text/plain; charset=utf-8', 'Content-Transfer-Encoding': '8bit', Date: new Date().toUTCString(), ...headers }).map(
    ([name, value]) => `${name}: ${value}`,
  );
  return `${lines.join('\r\n')}\r\n\r\n${text}`;
}
