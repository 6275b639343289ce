import type { MessageAuthor } from '@homing/contracts';
import { PUSH_JOBS } from './persisted-names';

export type PushKind = (typeof PUSH_JOBS)[keyof typeof PUSH_JOBS];

/**
 * What a push job carries: the subscription it goes to (its endpoint and keys are read when the job runs, so a
 * subscription deleted meanwhile is not pushed to) and what the payload says. No names, addresses or text.
 */
export interface PushJobMap {
  'new-message': { subscriptionId: string; tagCode: string; author: MessageAuthor };
}

export type PushJobData<K extends PushKind = PushKind> = PushJobMap[K];
