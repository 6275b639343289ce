import type { HttpErrorBody, Message } from '@homing/contracts';

export interface Caller {
  token?: string;
  finderToken?: string;
}

export interface StreamEvent {
  event: string;
  id?: string;
  data: string;
}

/** A server-sent event stream read with fetch, as the web app reads it (EventSource cannot send credentials). */
export class EventStreamClient {
  readonly events: StreamEvent[] = [];
  /** Comment lines (`: heartbeat`), without the colon. */
  readonly comments: string[] = [];
  /** Resolves when the server ends the stream: 'ended' cleanly, 'failed' if the connection broke. */
  readonly closed: Promise<'ended' | 'failed'>;
  private readonly abort = new AbortController();

  constructor(private readonly response: Response) {
    this.closed = this.read();
  }

  static async open(
    url: string,
    caller: Caller & { lastEventId?: string; from?: string } = {},
  ): Promise<{ status: number; stream?: EventStreamClient; error?: HttpErrorBody; headers: Headers }> {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    // The client address, through a trusted proxy (the gateway's TRUSTED_PROXIES).
    if (caller.from) headers['x-forwarded-for'] = caller.from;
    if (caller.token) headers.authorization = `Bearer ${caller.token}`;
    if (caller.finderToken) headers['x-finder-token'] = caller.finderToken;
    if (caller.lastEventId !== undefined) headers['last-event-id'] = caller.lastEventId;
    const response = await fetch(url, { headers });
    if (response.status !== 200) return { status: response.status, error: (await response.json()) as HttpErrorBody, headers: response.headers };
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    return { status: 200, stream: new EventStreamClient(response), headers: response.headers };
  }

  /**
   * The thread as a client keeps it: each message once, in the order it first came, as its latest event has it (a
   * message comes again, under its id, when its receipts change or it is stamped again as written).
   */
  get messages(): Message[] {
    const byId = new Map<number, Message>();
    for (const message of this.messageEvents) byId.set(message.id, message);
    return [...byId.values()];
  }

  /** Every `message` event as it came, a message sent again included. */
  get messageEvents(): Message[] {
    return this.events.filter((event) => event.event === 'message').map((event) => JSON.parse(event.data) as Message);
  }

  close(): void {
    this.abort.abort();
  }

  private async read(): Promise<'ended' | 'failed'> {
    const reader = this.response.body!.pipeThrough(new TextDecoderStream()).getReader();
    this.abort.signal.addEventListener('abort', () => void reader.cancel());
    let buffered = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return 'ended';
        buffered += value;
        let boundary: number;
        while ((boundary = buffered.indexOf('\n\n')) >= 0) {
          this.parse(buffered.slice(0, boundary));
          buffered = buffered.slice(boundary + 2);
        }
      }
    } catch {
      return 'failed';
    }
  }

  private parse(block: string): void {
    const event: StreamEvent = { event: 'message', data: '' };
    let hasField = false;
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        this.comments.push(line.slice(1).trim());
        continue;
      }
      const [field, ...rest] = line.split(':');
      const value = rest.join(':').replace(/^ /, '');
      if (field === 'event') event.event = value;
      else if (field === 'id') event.id = value;
      else if (field === 'data') event.data = value;
      else continue;
      hasField = true;
    }
    if (hasField && (event.data !== '' || event.event !== 'message')) this.events.push(event);
  }
}
