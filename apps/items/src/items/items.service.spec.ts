import type { IdempotencyKeys, OutboxWriter, Transaction } from '@homing/platform';
import type { ItemsConfig } from '../config/items.config';
import type { ItemsRepository, VersionedItemRow } from './items.repository';
import { ItemsService } from './items.service';

const OWNER = '0b9a7a3e-3f0c-4b8e-9c61-3d5a1f6f2a10';
const CODE = 'ABCDEFGHJKMNPQRS';
const manager = {} as Transaction;

function setUp({ rewardsEnabled = false, row = null as VersionedItemRow | null, deletedVersion = null as number | null } = {}) {
  const repository = {
    transaction: jest.fn((work: (m: Transaction) => Promise<unknown>) => work(manager)),
    lock: jest.fn(async () => row !== null),
    updateOwned: jest.fn(async () => row),
    deleteOwned: jest.fn(async () => deletedVersion),
    findOwnedByCode: jest.fn(async () => row),
    findByCode: jest.fn(async () => row),
    findByCodes: jest.fn(async (): Promise<unknown[]> => (row ? [{ ...row, co_owner_user_ids: [] }] : [])),
  };
  const outbox = { record: jest.fn() };
  const service = new ItemsService(
    repository as unknown as ItemsRepository,
    outbox as unknown as OutboxWriter,
    {} as IdempotencyKeys,
    { REWARDS_ENABLED: rewardsEnabled } as ItemsConfig,
  );
  return { service, repository, outbox };
}

const stored: VersionedItemRow = { code: CODE, name: 'Keys', reward_cents: 500, owner_user_id: OWNER, claimed_at: new Date('2026-01-01T00:00:00Z'), version: 4, photo_version: null, lost_at: null, lost_note: null };

describe('ItemsService', () => {
  it('refuses a positive reward while rewards are disabled, before touching anything', async () => {
    const { service, repository, outbox } = setUp();
    await expect(service.update(CODE, OWNER, { reward: 1 })).rejects.toMatchObject({ body: { status: 422, validation: { reward: 'invalid' } } });
    expect(repository.transaction).not.toHaveBeenCalled();
    expect(outbox.record).not.toHaveBeenCalled();
  });

  it('records the state after a change with the version the change produced', async () => {
    const { service, outbox } = setUp({ rewardsEnabled: true, row: stored });
    const item = await service.update('abcd-efgh-jkmn-pqrs', OWNER, { name: 'Keys' });
    expect(item).toMatchObject({ code: 'ABCD-EFGH-JKMN-PQRS', name: 'Keys', reward: 500, user_id: OWNER });
    expect(outbox.record).toHaveBeenCalledWith(manager, 'items.item.updated.v1', { code: CODE, name: 'Keys', rewardCents: 500 }, { aggregateId: CODE, version: 4 });
  });

  it('accepts a reward of 0 while rewards are disabled and changes only the name', async () => {
    const { service, repository } = setUp({ row: stored });
    await service.update(CODE, OWNER, { name: 'Keys', reward: 0 });
    expect(repository.updateOwned).toHaveBeenCalledWith(manager, { code: CODE, ownerUserId: OWNER, name: 'Keys', rewardCents: undefined, lost: undefined, lostNote: undefined });
  });

  it('hides a stored reward while rewards are disabled', async () => {
    const { service } = setUp({ row: stored });
    expect(await service.getOwned(CODE, OWNER)).not.toHaveProperty('reward');
  });

  it('answers another person’s item, and a malformed code, as missing, recording nothing', async () => {
    const { service, outbox } = setUp({ row: null, deletedVersion: null });
    for (const attempt of [service.update(CODE, OWNER, { name: 'x' }), service.delete(CODE, OWNER), service.delete('nope', OWNER), service.getOwned('nope', OWNER)]) {
      await expect(attempt).rejects.toMatchObject({ body: { status: 404, response_code: 'ITEM_NOT_FOUND' } });
    }
    expect(outbox.record).not.toHaveBeenCalled();
  });

  it('looks up several codes in one statement, answering in the order asked with null for unknown and malformed codes', async () => {
    const { service, repository } = setUp({ row: stored });
    const answers = await service.getPublicMany(['not a code', 'abcd-efgh-jkmn-pqrs', 'ZZZZZZZZZZZZZZZZ', CODE]);
    expect(repository.findByCodes).toHaveBeenCalledTimes(1);
    expect(repository.findByCodes).toHaveBeenCalledWith([CODE, 'ZZZZZZZZZZZZZZZZ']);
    const keys = { item: expect.objectContaining({ code: 'ABCD-EFGH-JKMN-PQRS', name: 'Keys' }), ownerUserId: OWNER, coOwnerUserIds: [] };
    expect(answers).toEqual([null, keys, null, keys]);
  });

  it('asks nothing of the database when no code asked about is well formed', async () => {
    const { service, repository } = setUp({ row: stored });
    expect(await service.getPublicMany(['x', ''])).toEqual([null, null]);
    expect(repository.findByCodes).not.toHaveBeenCalled();
  });

  // The repository bumps the version in its DELETE … RETURNING (tests/e2e/owner-items checks the number end to end).
  it('records a deletion with the version the repository returns', async () => {
    const { service, outbox } = setUp({ deletedVersion: 5 });
    await service.delete(CODE, OWNER);
    expect(outbox.record).toHaveBeenCalledWith(manager, 'items.item.deleted.v1', { code: CODE }, { aggregateId: CODE, version: 5 });
  });

  it('shows lost mode and its note, and the note only while the item is lost', async () => {
    const { service } = setUp({ row: { ...stored, lost_at: new Date('2026-02-01T00:00:00Z'), lost_note: 'Reward for the finder' } });
    expect(await service.getPublic(CODE)).toMatchObject({ item: { lost: true, lost_note: 'Reward for the finder' } });
    const found = setUp({ row: stored });
    const item = (await found.service.getPublic(CODE)).item;
    expect(item.lost).toBe(false);
    expect(item).not.toHaveProperty('lost_note');
  });

  it('takes a note only for a lost item, refusing it before any write', async () => {
    const { service, repository } = setUp({ row: stored });
    await expect(service.update(CODE, OWNER, { lost_note: 'Call me' })).rejects.toMatchObject({ body: { status: 422, validation: { lost_note: 'invalid' } } });
    await expect(service.update(CODE, OWNER, { lost: false, lost_note: 'Call me' })).rejects.toMatchObject({ body: { status: 422, validation: { lost_note: 'invalid' } } });
    // Checked on the row read with the item locked, so that a change under way is seen: refused before any write.
    expect(repository.updateOwned).not.toHaveBeenCalled();
    await service.update(CODE, OWNER, { lost: true, lost_note: 'Call me' });
    expect(repository.updateOwned).toHaveBeenCalledWith(manager, expect.objectContaining({ lost: true, lostNote: 'Call me' }));
    const lost = setUp({ row: { ...stored, lost_at: new Date() } });
    await lost.service.update(CODE, OWNER, { lost_note: '' });
    expect(lost.repository.updateOwned).toHaveBeenCalledWith(manager, expect.objectContaining({ lost: undefined, lostNote: '' }));
  });

  it('changes nothing, and records nothing, for an empty change', async () => {
    const { service, repository, outbox } = setUp({ row: stored });
    await service.update(CODE, OWNER, {});
    expect(repository.updateOwned).not.toHaveBeenCalled();
    expect(outbox.record).not.toHaveBeenCalled();
  });
});
