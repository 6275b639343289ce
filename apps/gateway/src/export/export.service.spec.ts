import { RpcTimeoutError, RpcUnavailableError, type RpcClient } from '@homing/platform';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { toHttpError } from '../http/http-error';
import { EXPORT_ABOUT, exportFileName, ExportService } from './export.service';

const OWNER = { id: '0b9a7a3e-3f0c-4b8e-9c61-3d5a1f6f2a10' } as AuthenticatedUser;
const ANSWERS: Record<string, unknown> = {
  'identity.rpc.export-user': {
    account: { email: 'olga@example.test', language: 'nl', createdAt: '2026-01-01T00:00:00.000Z', hasPassword: true, isAdmin: false },
    sessions: [{ createdAt: '2026-01-01T00:00:00.000Z', lastUsedAt: '2026-01-02T00:00:00.000Z', expiresAt: '2026-01-09T00:00:00.000Z', revokedAt: null, passkey: null }],
    mailRequests: [],
  },
  'items.rpc.export-owner': { items: [{ code: 'ABCD-EFGH-JKMN-PQRS', name: 'Keys', rewardCents: null, createdAt: '2026-01-01T00:00:00.000Z', claimedAt: '2026-01-01T00:00:00.000Z', photo: null }] },
  'messaging.rpc.export-owner': { conversations: [] },
  'notifications.rpc.export-user': { pushSubscriptions: [], deliveries: [{ kind: 'login-code', channel: 'email', status: 'sent', createdAt: '2026-01-01T00:00:00.000Z', sentAt: '2026-01-01T00:00:01.000Z' }], itemSettings: [] },
};

function serviceAnswering(failing: Record<string, Error> = {}) {
  const asked: Array<[string, unknown]> = [];
  const rpc = {
    request: jest.fn(async (subject: string, request: unknown) => {
      asked.push([subject, request]);
      if (failing[subject]) throw failing[subject];
      return ANSWERS[subject];
    }),
  } as unknown as RpcClient;
  return { service: new ExportService(rpc), asked };
}

describe('an owner’s data export', () => {
  it('asks every service about the caller only, and puts their answers in one file with its date and sections named', async () => {
    const { service, asked } = serviceAnswering();
    const file = await service.exportOf(OWNER, new Date('2026-11-25T23:59:00Z'));
    expect(asked.map(([, request]) => Object.values(request as object))).toEqual([[OWNER.id], [OWNER.id], [OWNER.id], [OWNER.id]]);
    expect(file).toMatchObject({ exported_at: '2026-11-25T23:59:00.000Z', account: { email: 'olga@example.test' }, items: [{ name: 'Keys' }], notifications_sent: [{ kind: 'login-code' }] });
    expect(Object.keys(file.about).sort()).toEqual(Object.keys(file).filter((key) => key !== 'exported_at' && key !== 'about').sort());
    expect(file.about).toBe(EXPORT_ABOUT);
  });

  it('answers 503 rather than a partial file when a service is down or does not answer in time', async () => {
    for (const failure of [new RpcUnavailableError('messaging.rpc.export-owner'), new RpcTimeoutError('messaging.rpc.export-owner')]) {
      const { service } = serviceAnswering({ 'messaging.rpc.export-owner': failure });
      const error = await service.exportOf(OWNER).catch((caught: unknown) => caught);
      expect(toHttpError(error)).toMatchObject({ status: 503, body: { response_code: 'SERVICE_UNAVAILABLE' }, headers: { 'Retry-After': expect.any(String) } });
    }
  });

  it('names the file by the UTC date of the export', () => {
    expect(exportFileName(new Date('2026-03-09T23:30:00Z'))).toBe('homing-export-2026-03-09.json');
  });
});
