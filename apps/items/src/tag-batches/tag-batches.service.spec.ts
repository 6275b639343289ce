import type { IdempotencyKeys } from '@homing/platform';
import type { ItemsConfig } from '../config/items.config';
import type { TagBatchesRepository, TagBatchRow, TagBatchSummaryRow } from './tag-batches.repository';
import { TagBatchesService } from './tag-batches.service';

const BATCH = '5f0c1a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b';
const ADMIN = '0b9a7a3e-3f0c-4b8e-9c61-3d5a1f6f2a10';
const row: TagBatchRow = { id: BATCH, label: 'Keyrings', tag_count: 30, created_at: new Date('2026-03-01T10:00:00Z') };
const summary: TagBatchSummaryRow = { ...row, created_by: ADMIN, claimed: 2 };

function setUp({ batch = row as TagBatchRow | null, summaries = [summary] } = {}) {
  const repository = {
    findBatch: jest.fn(async () => batch),
    findSummary: jest.fn(async (id: string) => summaries.find((found) => found.id === id) ?? null),
    listSummaries: jest.fn(async () => summaries),
    findCodesAfter: jest.fn(async () => ['AAAAAAAAAAAAAAAB', 'AAAAAAAAAAAAAAAC']),
  };
  const service = new TagBatchesService(repository as unknown as TagBatchesRepository, {} as IdempotencyKeys, { PUBLIC_URL: 'https://homing.example', RELAY_DOMAIN: 'relay.homing.example' } as ItemsConfig);
  return { service, repository };
}

describe('TagBatchesService', () => {
  it('lists batches as the repository orders them, with claimed counts and the minting admin', async () => {
    const older: TagBatchSummaryRow = { ...summary, id: '6f0c1a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b', created_at: new Date('2026-02-01T10:00:00Z'), claimed: 0 };
    const { service } = setUp({ summaries: [summary, older] });
    const { batches } = await service.list();
    expect(batches).toEqual([
      { id: BATCH, label: 'Keyrings', count: 30, pages: 2, created_at: '2026-03-01T10:00:00.000Z', claimed: 2, createdBy: ADMIN },
      expect.objectContaining({ id: older.id, claimed: 0 }),
    ]);
  });

  it('reads one batch, and answers 404 for an unknown or malformed id without querying a malformed one', async () => {
    const { service, repository } = setUp();
    await expect(service.get(BATCH)).resolves.toMatchObject({ id: BATCH, claimed: 2, createdBy: ADMIN });
    await expect(service.get('7f0c1a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b')).rejects.toMatchObject({ body: { status: 404, response_code: 'NOT_FOUND' } });
    await expect(service.get('not-a-batch')).rejects.toMatchObject({ body: { status: 404 } });
    expect(repository.findSummary).toHaveBeenCalledTimes(2);
  });

  it('pages through a batch’s codes after the last one seen', async () => {
    const { service, repository } = setUp();
    await expect(service.codes({ batchId: BATCH, after: 'AAAAAAAAAAAAAAAA', limit: 2 })).resolves.toEqual({ codes: ['AAAAAAAAAAAAAAAB', 'AAAAAAAAAAAAAAAC'] });
    expect(repository.findCodesAfter).toHaveBeenCalledWith(BATCH, 'AAAAAAAAAAAAAAAA', 2);
  });

  it('answers 404 for the codes of an unknown batch', async () => {
    const { service, repository } = setUp({ batch: null });
    await expect(service.codes({ batchId: BATCH, limit: 10 })).rejects.toMatchObject({ body: { status: 404, response_code: 'NOT_FOUND' } });
    expect(repository.findCodesAfter).not.toHaveBeenCalled();
  });
});
