import type { DomainEvent } from '@homing/contracts';
import type { EmailQueueRepository } from '../jobs/email-queue.repository';
import { notificationJobId } from '../jobs/job-ids';
import type { PushQueueRepository } from '../jobs/push-queue.repository';
import type { ItemRecipient, ItemRecipientsService } from '../item-people/item-recipients.service';
import { ScanAlertConsumer } from './scan-alert.consumer';
import type { ScanAlertWindow, ScanAlertWindowsRepository } from './scan-alert-windows.repository';

const OWNER = '0b9a7a3e-3f0c-4b8e-9c61-3d5a1f6f2a10';
const SCAN = '22222222-2222-4222-8222-222222222222';
const OPENING_SCAN = '33333333-3333-4333-8333-333333333333';
const CO_OWNER = '44444444-4444-4444-8444-444444444444';

const ownerAlone: ItemRecipient[] = [{ userId: OWNER, email: true, push: true }];

/** `subscriptions`: each person's, as the one read of the item's people answers them. */
function setUp(window: ScanAlertWindow | null, people = ownerAlone, subscriptions: string[] = []) {
  const emails = { enqueue: jest.fn(async () => 'job') };
  const pushes = { enqueue: jest.fn(async () => 'job') };
  const windows = { windowOf: jest.fn(async () => window) };
  const recipients = { recipientsWithSubscriptionsOf: jest.fn(async () => people.map((person) => ({ ...person, subscriptionIds: subscriptions.map((id) => `${person.userId}/${id}`) }))) };
  const consumer = new ScanAlertConsumer(
    emails as unknown as EmailQueueRepository,
    pushes as unknown as PushQueueRepository,
    windows as unknown as ScanAlertWindowsRepository,
    recipients as unknown as ItemRecipientsService,
  );
  return { consumer, emails, pushes, windows, recipients };
}

const event = (id = 'event-2'): DomainEvent<'items.item.scanned.v1'> =>
  ({
    id,
    subject: 'items.item.scanned.v1',
    occurredAt: '2026-11-25T07:00:01.000Z',
    data: { code: 'ABCDEFGHJKMNPQRS', ownerUserId: OWNER, scanId: SCAN, scannedAt: '2026-11-25T07:00:00.000Z' },
  }) as DomainEvent<'items.item.scanned.v1'>;

describe('the scan alert e-mail', () => {
  it('asks for the item’s window by the scan’s own time, so a redelivered event lands in the same one', async () => {
    const { consumer, windows } = setUp({ eventId: 'event-2', scanId: SCAN });
    await consumer.handle(event());
    expect(windows.windowOf).toHaveBeenCalledWith('ABCDEFGHJKMNPQRS', 'event-2', new Date('2026-11-25T07:00:00.000Z'), SCAN);
  });

  it('e-mails the owner at once, ids only, for a scan that opens a window: the job is named by its event', async () => {
    const { consumer, emails } = setUp({ eventId: 'event-2', scanId: SCAN });
    await consumer.handle(event());
    expect(emails.enqueue).toHaveBeenCalledTimes(1);
    expect(emails.enqueue).toHaveBeenCalledWith({ kind: 'scan-alert', data: { userId: OWNER, tagCode: 'ABCDEFGHJKMNPQRS', scanId: SCAN } }, 'event-2');
    expect(notificationJobId('email', 'event-2', OWNER)).toBe(`email_event-2_${OWNER}`);
  });

  it('names a later scan of the window by the window’s opener and its scan: the same job, which the queue refuses', async () => {
    const { consumer, emails } = setUp({ eventId: 'event-1', scanId: OPENING_SCAN });
    await consumer.handle(event());
    expect(emails.enqueue).toHaveBeenCalledWith({ kind: 'scan-alert', data: { userId: OWNER, tagCode: 'ABCDEFGHJKMNPQRS', scanId: OPENING_SCAN } }, 'event-1');
  });

  it('e-mails each person of the item with e-mail on, each their own job of the window', async () => {
    const { consumer, emails } = setUp({ eventId: 'event-1', scanId: OPENING_SCAN }, [
      { userId: OWNER, email: true, push: false },
      { userId: CO_OWNER, email: true, push: true },
      { userId: '55555555-5555-4555-8555-555555555555', email: false, push: true },
    ]);
    await consumer.handle(event());
    expect(emails.enqueue.mock.calls).toEqual([
      [{ kind: 'scan-alert', data: { userId: OWNER, tagCode: 'ABCDEFGHJKMNPQRS', scanId: OPENING_SCAN } }, 'event-1'],
      [{ kind: 'scan-alert', data: { userId: CO_OWNER, tagCode: 'ABCDEFGHJKMNPQRS', scanId: OPENING_SCAN } }, 'event-1'],
    ]);
  });

  it('e-mails nothing for a scan older than the window in force, but pushes it', async () => {
    const { consumer, emails, pushes } = setUp(null, ownerAlone, ['phone']);
    await consumer.handle(event());
    expect(emails.enqueue).not.toHaveBeenCalled();
    expect(pushes.enqueue).toHaveBeenCalledTimes(1);
  });

  it('is a durable consumer of its own, from new events on, stale after a day, taking over the two that e-mailed and pushed apart', () => {
    const { consumer } = setUp(null);
    expect({ durableName: consumer.durableName, subjects: consumer.subjects, startFrom: consumer.startFrom, staleAfterMs: consumer.staleAfterMs, succeeds: consumer.succeeds }).toEqual({
      durableName: 'notifications__scan-alert',
      subjects: ['items.item.scanned.v1'],
      startFrom: 'new',
      staleAfterMs: 24 * 60 * 60 * 1000,
      succeeds: ['notifications__scan-alert-mail', 'notifications__scan-alert-push'],
    });
  });
});

describe('the scan alert push', () => {
  it('pushes every scan to each of the owner’s subscriptions, ids only, one job per event and subscription', async () => {
    const { consumer, pushes, recipients } = setUp(null, ownerAlone, ['phone', 'laptop']);
    await consumer.handle(event('event-1'));
    await consumer.handle(event('event-2'));
    expect(recipients.recipientsWithSubscriptionsOf).toHaveBeenCalledWith('ABCDEFGHJKMNPQRS', OWNER);
    // Not coalesced: each scan pushes again.
    expect(pushes.enqueue.mock.calls).toEqual([
      [{ kind: 'scan-alert', data: { subscriptionId: `${OWNER}/phone`, tagCode: 'ABCDEFGHJKMNPQRS', scanId: SCAN } }, 'event-1'],
      [{ kind: 'scan-alert', data: { subscriptionId: `${OWNER}/laptop`, tagCode: 'ABCDEFGHJKMNPQRS', scanId: SCAN } }, 'event-1'],
      [{ kind: 'scan-alert', data: { subscriptionId: `${OWNER}/phone`, tagCode: 'ABCDEFGHJKMNPQRS', scanId: SCAN } }, 'event-2'],
      [{ kind: 'scan-alert', data: { subscriptionId: `${OWNER}/laptop`, tagCode: 'ABCDEFGHJKMNPQRS', scanId: SCAN } }, 'event-2'],
    ]);
  });

  it('pushes to the subscriptions of each person of the item with push on, and none of one with push off', async () => {
    const { consumer, pushes } = setUp(
      null,
      [
        { userId: OWNER, email: true, push: false },
        { userId: CO_OWNER, email: false, push: true },
      ],
      ['phone'],
    );
    await consumer.handle(event('event-1'));
    expect(pushes.enqueue.mock.calls).toEqual([[{ kind: 'scan-alert', data: { subscriptionId: `${CO_OWNER}/phone`, tagCode: 'ABCDEFGHJKMNPQRS', scanId: SCAN } }, 'event-1']]);
  });

  it('pushes nothing to an owner without subscriptions', async () => {
    const { consumer, pushes, emails, recipients } = setUp({ eventId: 'event-2', scanId: SCAN });
    await consumer.handle(event());
    expect(pushes.enqueue).not.toHaveBeenCalled();
    // The e-mail and the pushes come from the one read of the item's people.
    expect(emails.enqueue).toHaveBeenCalledTimes(1);
    expect(recipients.recipientsWithSubscriptionsOf).toHaveBeenCalledTimes(1);
  });
});
