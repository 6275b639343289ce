import { Injectable } from '@nestjs/common';
import { parseTagCode, type ThreadAccess } from '@homing/contracts';
import { RpcClient } from '@homing/platform';
import { ThreadAccessCache, type ThreadCaller } from './thread-access-cache';
import { ThreadWatermarks } from './thread-watermarks';

/** Who may read an item's thread, asked of messaging, and polls with nothing new answered from the watermarks. */
@Injectable()
export class ThreadReaders {
  constructor(
    private readonly rpc: RpcClient,
    private readonly watermarks: ThreadWatermarks,
    private readonly access: ThreadAccessCache,
  ) {}

  /** Messaging's decision, fresh (403 for a stranger, 404 for an unknown item), kept for the empty polls after it. */
  async authorise(code: string, caller: ThreadCaller): Promise<ThreadAccess> {
    const access = await this.rpc.request('messaging.rpc.thread-access', { code, viewerUserId: caller.viewerUserId, finderToken: caller.finderToken });
    this.access.set(caller, access);
    return access;
  }

  /**
   * Whether a poll `after=` has nothing new for this caller, decided without messaging's database: true only when
   * the events this process saw bound every message the caller may read at or below `after`, and the caller's
   * access is known (asked of messaging on the first such poll, then kept briefly). False sends the poll to
   * messaging, which answers it and authorises it as always.
   */
  async nothingNewAfter(code: string, after: number, caller: ThreadCaller): Promise<boolean> {
    const itemCode = parseTagCode(code);
    if (itemCode === null || !this.watermarks.knows(itemCode)) return false;
    const access = this.access.get(itemCode, caller) ?? (await this.authorise(code, caller));
    return this.watermarks.isNothingAfter(itemCode, access.conversationId, after);
  }
}
