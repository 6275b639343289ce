import type { Message } from '@homing/contracts';

/** The finder's number in the server's label of a message ("Finder 2"), shown in the reader's language. */
export function finderNumber(message: Message): number | undefined {
  const match = /(\d+)\s*$/.exec(message.finder ?? '');
  return match ? Number(match[1]) : undefined;
}

/** The conversations of an owner's thread by finder number (ARCHITECTURE §8: one per finder). */
export function finderConversations(messages: readonly Message[]): Array<{ id: string; number: number }> {
  const numbers = new Map<string, number>();
  for (const message of messages) {
    if (!numbers.has(message.conversation_id)) numbers.set(message.conversation_id, finderNumber(message) ?? numbers.size + 1);
  }
  return [...numbers].map(([id, number]) => ({ id, number })).sort((a, b) => a.number - b.number);
}

/** The conversation the owner answers unless they pick another: the one of the latest finder's message. */
export function latestFinderConversation(messages: readonly Message[]): string | undefined {
  return messages.findLast((message) => message.author === 'finder')?.conversation_id;
}
