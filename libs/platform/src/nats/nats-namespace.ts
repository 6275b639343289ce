/**
 * Subject and stream names as they appear on the wire. An empty namespace leaves them as the contracts spell
 * them; a namespace `t1` turns `items.rpc.get-public` into `t1.items.rpc.get-public` and `HOMING_EVENTS`
 * into `T1_HOMING_EVENTS`, so test workers and environments sharing one NATS never see each other.
 */
export class NatsNamespace {
  constructor(readonly prefix: string) {}

  subject(subject: string): string {
    return this.prefix ? `${this.prefix}.${subject}` : subject;
  }

  /** The contract subject of a wire subject. */
  unprefix(wireSubject: string): string {
    return this.prefix && wireSubject.startsWith(`${this.prefix}.`) ? wireSubject.slice(this.prefix.length + 1) : wireSubject;
  }

  stream(name: string): string {
    return this.prefix ? `${this.prefix.toUpperCase()}_${name}` : name;
  }
}
