import { clientNetworkOf } from '@homing/platform';
import { SmtpReply } from '../relay/smtp-reply';

/** What the limits know of a connection: smtp-server's session, one object for the connection's whole life. */
interface Connection {
  remoteAddress: string;
}

/**
 * Limits on one client of the SMTP server, beside smtp-server's `maxClients` for all: the connections it holds at once
 * (past them, a new one is answered 421 at connect) and the mails (MAIL FROM) over one connection (past them, 421 and
 * the connection closed: a sending server reconnects for the rest). Counted in this process: each replica takes its
 * own connections.
 */
export class ConnectionLimits {
  private readonly openPerClient = new Map<string, number>();
  private readonly counted = new WeakMap<Connection, { client: string; mails: number }>();

  constructor(
    private readonly domain: string,
    private readonly limits: { connectionsPerClient: number; mailsPerConnection: number },
  ) {}

  /** A new connection: undefined when it is taken (and counted until `close`), else the 421 that refuses it. */
  open(connection: Connection): SmtpReply | undefined {
    const client = clientNetworkOf(connection.remoteAddress);
    const open = this.openPerClient.get(client) ?? 0;
    if (open >= this.limits.connectionsPerClient) return new SmtpReply(421, `4.7.0 ${this.domain} Too many connections from your address, try again later`);
    this.openPerClient.set(client, open + 1);
    this.counted.set(connection, { client, mails: 0 });
    return undefined;
  }

  /** Any connection closed, taken or refused (only a taken one was counted). */
  close(connection: Connection): void {
    const counted = this.counted.get(connection);
    if (!counted) return;
    this.counted.delete(connection);
    const open = (this.openPerClient.get(counted.client) ?? 1) - 1;
    if (open > 0) this.openPerClient.set(counted.client, open);
    else this.openPerClient.delete(counted.client);
  }

  /** MAIL FROM: undefined while the connection may start another mail, else the 421 that ends the connection. */
  startMail(connection: Connection): SmtpReply | undefined {
    const counted = this.counted.get(connection);
    if (!counted) return undefined;
    counted.mails += 1;
    return counted.mails > this.limits.mailsPerConnection ? new SmtpReply(421, `4.7.0 ${this.domain} Too many mails on one connection, please reconnect`) : undefined;
  }
}
