import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';

/**
 * The TXT records a test publishes, by name (SPF at the domain, DKIM keys at `<selector>._domainkey.<domain>`, DMARC
 * at `_dmarc.<domain>`); 'SERVFAIL' makes every query of a name fail as a broken DNS server answers.
 */
export type TxtRecords = Record<string, string[] | 'SERVFAIL'>;

export interface DnsServer {
  /** `127.0.0.1:<port>`, as RELAY_DNS_SERVERS takes it. */
  address: string;
  port: number;
  /** Every query asked, `<TYPE> <name>`, in order. */
  queries: string[];
  stop(): Promise<void>;
}

const TYPE_TXT = 16;
const TYPE_OPT = 41;
const TYPE_NAMES: Record<number, string> = { 1: 'A', 2: 'NS', 5: 'CNAME', 12: 'PTR', 15: 'MX', 16: 'TXT', 28: 'AAAA', 41: 'OPT' };
const RCODE = { noError: 0, formErr: 1, servFail: 2, nxDomain: 3 } as const;
// Without EDNS a client takes 512 bytes over UDP; with it, as many as its OPT record says.
const PLAIN_UDP_BYTES = 512;

/**
 * A real DNS server on 127.0.0.1 (UDP, a free port) that answers TXT queries from `records` and nothing else, as an
 * authoritative server would: the records of a name it knows; no data (NOERROR, no answer) for another type of it;
 * NXDOMAIN for a name it does not know. Written on `dgram` (RFC 1035 messages), so the relay's own resolver
 * (Node's dns.Resolver, c-ares) is what is tested against it. No TCP: an answer too big for the client's UDP size is
 * sent truncated (TC), which a test would see fail.
 */
export async function startDnsServer(records: TxtRecords): Promise<DnsServer> {
  const known = new Map(Object.entries(records).map(([name, value]) => [name.toLowerCase().replace(/\.$/, ''), value]));
  const queries: string[] = [];
  const socket = createSocket('udp4');
  socket.on('message', (message, remote) => {
    const query = parseQuery(message);
    if (!query) return reply(socket, remote, errorReply(message, RCODE.formErr));
    queries.push(`${TYPE_NAMES[query.type] ?? query.type} ${query.name}`);
    const found = known.get(query.name.toLowerCase());
    if (found === 'SERVFAIL') return reply(socket, remote, answer(query, RCODE.servFail, []));
    if (found === undefined) return reply(socket, remote, answer(query, RCODE.nxDomain, []));
    reply(socket, remote, answer(query, RCODE.noError, query.type === TYPE_TXT ? found : []));
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => {
      socket.off('error', reject);
      resolve();
    });
  });
  const { port } = socket.address();
  return {
    address: `127.0.0.1:${port}`,
    port,
    queries,
    stop: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

interface Query {
  id: number;
  /** The flags' RD bit, echoed. */
  recursionDesired: boolean;
  name: string;
  type: number;
  /** The question section as the client wrote it (its name's case kept), echoed in the reply. */
  question: Buffer;
  /** The client's UDP payload size, from its EDNS OPT record; undefined without one. */
  ednsUdpBytes?: number;
}

/** A standard query (opcode 0) with one question, or null for anything else. */
function parseQuery(message: Buffer): Query | null {
  if (message.length < 12) return null;
  const flags = message.readUInt16BE(2);
  const isResponse = (flags & 0x8000) !== 0;
  const opcode = (flags >> 11) & 0xf;
  if (isResponse || opcode !== 0 || message.readUInt16BE(4) !== 1) return null;
  const labels: string[] = [];
  let offset = 12;
  for (;;) {
    if (offset >= message.length) return null;
    const length = message[offset];
    if (length === 0) break;
    // Compression pointers (0xC0) are not used in a question of one name.
    if (length > 63 || offset + 1 + length > message.length) return null;
    labels.push(message.toString('latin1', offset + 1, offset + 1 + length));
    offset += 1 + length;
  }
  offset += 1;
  if (offset + 4 > message.length) return null;
  const type = message.readUInt16BE(offset);
  const question = message.subarray(12, offset + 4);
  offset += 4;
  let ednsUdpBytes: number | undefined;
  // The additional section: an OPT record (root name, type 41, its class the UDP payload size) when the client uses EDNS.
  const additional = message.readUInt16BE(10);
  if (additional > 0 && message.length >= offset + 11 && message[offset] === 0 && message.readUInt16BE(offset + 1) === TYPE_OPT) {
    ednsUdpBytes = message.readUInt16BE(offset + 3);
  }
  return { id: message.readUInt16BE(0), recursionDesired: (flags & 0x0100) !== 0, name: labels.join('.'), type, question, ednsUdpBytes };
}

/**
 * The reply to `query`: header (QR, AA, RA, the client's RD, `rcode`), its question, one TXT record per text (each cut
 * into character-strings of at most 255 bytes, as long DKIM keys are published), and an OPT record when it sent one.
 */
function answer(query: Query, rcode: number, texts: string[]): Buffer {
  const records = texts.map((text) => {
    const bytes = Buffer.from(text, 'utf8');
    const strings: Buffer[] = [];
    for (let start = 0; start < bytes.length || strings.length === 0; start += 255) {
      const part = bytes.subarray(start, start + 255);
      strings.push(Buffer.concat([Buffer.from([part.length]), part]));
    }
    const data = Buffer.concat(strings);
    const fixed = Buffer.alloc(12);
    // The name: a pointer to the question's, at offset 12.
    fixed.writeUInt16BE(0xc00c, 0);
    fixed.writeUInt16BE(TYPE_TXT, 2);
    fixed.writeUInt16BE(1, 4); // class IN
    fixed.writeUInt32BE(60, 6); // TTL
    fixed.writeUInt16BE(data.length, 10);
    return Buffer.concat([fixed, data]);
  });
  const opt = query.ednsUdpBytes === undefined ? [] : [optRecord()];
  const limit = Math.max(PLAIN_UDP_BYTES, query.ednsUdpBytes ?? 0);
  const full = Buffer.concat([header(query, rcode, records.length, opt.length, false), query.question, ...records, ...opt]);
  if (full.length <= limit) return full;
  return Buffer.concat([header(query, rcode, 0, opt.length, true), query.question, ...opt]);
}

function header(query: Query, rcode: number, answers: number, additional: number, truncated: boolean): Buffer {
  const buffer = Buffer.alloc(12);
  buffer.writeUInt16BE(query.id, 0);
  // QR, opcode 0, AA, TC, RD echoed, RA, rcode.
  buffer.writeUInt16BE(0x8000 | 0x0400 | (truncated ? 0x0200 : 0) | (query.recursionDesired ? 0x0100 : 0) | 0x0080 | rcode, 2);
  buffer.writeUInt16BE(1, 4);
  buffer.writeUInt16BE(answers, 6);
  buffer.writeUInt16BE(0, 8);
  buffer.writeUInt16BE(additional, 10);
  return buffer;
}

/** The server's EDNS OPT record: root name, type 41, 1232 bytes over UDP, no extended rcode, no options. */
function optRecord(): Buffer {
  const buffer = Buffer.alloc(11);
  buffer.writeUInt16BE(TYPE_OPT, 1);
  buffer.writeUInt16BE(1232, 3);
  return buffer;
}

/** FORMERR for a message that is no query this server reads: the header alone, its id kept when it has one. */
function errorReply(message: Buffer, rcode: number): Buffer {
  const buffer = Buffer.alloc(12);
  if (message.length >= 2) buffer.writeUInt16BE(message.readUInt16BE(0), 0);
  buffer.writeUInt16BE(0x8000 | rcode, 2);
  return buffer;
}

function reply(socket: Socket, remote: RemoteInfo, message: Buffer): void {
  socket.send(message, remote.port, remote.address);
}
