import { Readable } from 'node:stream';
import { Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import {
  foundPageUrl,
  formatTagCode,
  ResponseCode,
  TAG_BATCH_CODES_PAGE,
  type CreateTagBatchBody,
  type RpcResponse,
  type TagBatch,
  type TagBatchList,
  type TagBatchRecord,
  type TagBatchSummary,
} from '@homing/contracts';
import { InjectConfig, RpcClient, RpcError } from '@homing/platform';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import type { GatewayConfig } from '../config/gateway.config';
import { ApiError } from '../http/http-error';
import { PDF_RENDER_RETRY_AFTER_SECONDS, PDF_RENDERS_AT_ONCE, RenderPlaces } from './pdf-renders';
import { pdfSheetPages, renderTagSheetPdf } from './tag-sheet-pdf';

export type TagSheetPage = RpcResponse<'items.rpc.tag-batch-sheet'>;

/** A file of a batch, streamed as it is made. */
export interface TagBatchFile {
  filename: string;
  body: Readable;
}

/**
 * Admins mint tags in batches, list them and print them; anyone else is refused (403). The PDF and the CSV are made
 * here from the batch's codes, fetched a page at a time: a QR code is a pure function of PUBLIC_URL and the code (as
 * for /qr), and no single NATS message could carry a 10,000-tag file.
 */
@Injectable()
export class TagBatchesService {
  private readonly pdfRenders = new RenderPlaces(PDF_RENDERS_AT_ONCE);

  constructor(
    private readonly rpc: RpcClient,
    @InjectConfig() private readonly config: Pick<GatewayConfig, 'PUBLIC_URL' | 'RELAY_DOMAIN'>,
  ) {}

  /**
   * With an `Idempotency-Key`, items mints at most one batch per key and admin: a retry after a timeout gets the
   * first batch (waiting for it if it is still being minted), never a second one.
   */
  create(admin: AuthenticatedUser, body: CreateTagBatchBody, idempotencyKey?: string): Promise<TagBatch> {
    requireAdmin(admin);
    // Ten thousand inserts take longer than a scan: a generous timeout.
    return this.rpc.request('items.rpc.create-tag-batch', { ...body, createdBy: admin.id, idempotencyKey }, { timeoutMs: 30_000 });
  }

  async list(admin: AuthenticatedUser): Promise<TagBatchList> {
    requireAdmin(admin);
    const { batches } = await this.rpc.request('items.rpc.list-tag-batches', {});
    const emails = await this.emailsOf(batches.map((batch) => batch.createdBy));
    return { batches: batches.map((batch) => toSummary(batch, emails)) };
  }

  async get(admin: AuthenticatedUser, batchId: string): Promise<TagBatchSummary> {
    requireAdmin(admin);
    const batch = await this.rpc.request('items.rpc.get-tag-batch', { batchId });
    return toSummary(batch, await this.emailsOf([batch.createdBy]));
  }

  async sheet(admin: AuthenticatedUser, batchId: string, page: number | undefined): Promise<TagSheetPage> {
    requireAdmin(admin);
    return this.rpc.request('items.rpc.tag-batch-sheet', { batchId, page: page ?? 1 });
  }

  /**
   * The batch's printable sheet as one PDF: the same A4 grid as the SVG sheet, with crop marks around each tag. At
   * most PDF_RENDERS_AT_ONCE are drawn at once in this process, each holding its place until its file has ended or its
   * reader has gone; another is refused at once, 503 SERVICE_BUSY with Retry-After (set on `reply`), before anything
   * is asked of items.
   */
  async pdf(admin: AuthenticatedUser, batchId: string, reply: Pick<FastifyReply, 'header'>): Promise<TagBatchFile> {
    requireAdmin(admin);
    const release = this.pdfRenders.take();
    if (!release) {
      void reply.header('retry-after', String(PDF_RENDER_RETRY_AFTER_SECONDS));
      throw new ApiError(503, ResponseCode.SERVICE_BUSY, 'Too many tag sheets are being drawn right now. Try again shortly.');
    }
    try {
      const { batch, codes } = await this.openCodes(batchId);
      const sheet = { publicUrl: this.config.PUBLIC_URL, relayDomain: this.config.RELAY_DOMAIN, label: batch.label, pages: pdfSheetPages(batch.count) };
      const body = Readable.from(renderTagSheetPdf(sheet, codes));
      // Ended, failed, or destroyed because the client went away (Fastify destroys a stream whose response closed).
      body.once('end', release).once('close', release);
      return { filename: `${fileStem(batch)}.pdf`, body };
    } catch (error) {
      release();
      throw error;
    }
  }

  /** One row per tag: the printed code, the URL its QR code opens, and the URL of its QR image. */
  async csv(admin: AuthenticatedUser, batchId: string): Promise<TagBatchFile> {
    requireAdmin(admin);
    const { batch, codes } = await this.openCodes(batchId);
    const publicUrl = this.config.PUBLIC_URL.replace(/\/+$/, '');
    async function* rows(): AsyncGenerator<string> {
      yield 'code,finder_url,qr_url\r\n';
      for await (const page of codes) {
        yield page.map((code) => [formatTagCode(code), foundPageUrl(publicUrl, code), `${publicUrl}/qr/${formatTagCode(code)}`].map(csvField).join(',') + '\r\n').join('');
      }
    }
    return { filename: `${fileStem(batch)}.csv`, body: Readable.from(rows()) };
  }

  /**
   * The batch and its codes, page by page. The batch and the first page are read before anything is sent, so an
   * unknown batch is a 404 in the contract's JSON; a failure after that ends the file (the response is destroyed).
   */
  private async openCodes(batchId: string): Promise<{ batch: TagBatchRecord; codes: AsyncIterable<string[]> }> {
    const batch = await this.rpc.request('items.rpc.get-tag-batch', { batchId });
    const first = await this.codesAfter(batch.id, undefined);
    const codesAfter = (after: string) => this.codesAfter(batch.id, after);
    async function* codes(): AsyncGenerator<string[]> {
      for (let page = first; page.length > 0; page = await codesAfter(page[page.length - 1])) {
        yield page;
        if (page.length < TAG_BATCH_CODES_PAGE) return;
      }
    }
    return { batch, codes: codes() };
  }

  private async codesAfter(batchId: string, after: string | undefined): Promise<string[]> {
    return (await this.rpc.request('items.rpc.tag-batch-codes', { batchId, ...(after ? { after } : {}), limit: TAG_BATCH_CODES_PAGE })).codes;
  }

  /** The e-mail of each minting admin, asked once per distinct admin; null for an account that is gone. */
  private async emailsOf(userIds: Array<string | null>): Promise<Map<string, string | null>> {
    const distinct = [...new Set(userIds.filter((id): id is string => id !== null))];
    const emails = await Promise.all(
      distinct.map((userId) =>
        this.rpc.request('identity.rpc.get-user', { userId }).then(
          (user) => user.email,
          (error: unknown) => {
            if (error instanceof RpcError && error.body.status === 404) return null;
            throw error;
          },
        ),
      ),
    );
    return new Map(distinct.map((userId, index) => [userId, emails[index]]));
  }
}

// The auth guard has refused non-admins already (`caller: 'admin'`, before the pipes); kept for any other caller of
// this service.
function requireAdmin(user: AuthenticatedUser): void {
  if (!user.isAdmin) throw new ApiError(403, ResponseCode.FORBIDDEN);
}

function toSummary({ createdBy, ...batch }: TagBatchRecord, emails: Map<string, string | null>): TagBatchSummary {
  return { ...batch, created_by: createdBy === null ? null : (emails.get(createdBy) ?? null) };
}

/** `tag-batch-<label as a slug>`, or `tag-batch-<id>` for a label without letters or digits. */
function fileStem(batch: Pick<TagBatch, 'id' | 'label'>): string {
  const slug = batch.label
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return `tag-batch-${slug || batch.id}`;
}

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}
