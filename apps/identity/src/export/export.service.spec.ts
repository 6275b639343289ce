import { ExportService, sessionExpiry } from './export.service';
import type { ExportRepository } from './export.repository';

const DAY = 24 * 60 * 60 * 1000;
const at = (days: number) => new Date(Date.UTC(2026, 0, 1) + days * DAY);

describe('identity’s part of a data export', () => {
  it('dates a session’s end a week after its last use, and never past 30 days from its start', () => {
    expect(sessionExpiry({ createdAt: at(0), lastUsedAt: at(2) })).toEqual(at(9));
    expect(sessionExpiry({ createdAt: at(0), lastUsedAt: at(28) })).toEqual(at(30));
  });

  it('answers 404 for a user it does not know', async () => {
    const repository = { account: async () => undefined, sessions: async () => [], passkeys: async () => [], mailRequests: async () => [] } as unknown as ExportRepository;
    await expect(new ExportService(repository).exportUser('0b9a7a3e-3f0c-4b8e-9c61-3d5a1f6f2a10')).rejects.toMatchObject({ body: { status: 404 } });
  });
});
