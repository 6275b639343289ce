import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { CreateTagBatchBody, TagBatch, TagBatchList, TagBatchSummary } from '@homing/contracts';

import { useApi } from '../../lib/api-context';
import type { DownloadedFile } from '../../lib/api-transport';
import { saveFile } from '../../lib/save-file';
import { refetchAfterChange } from '../../lib/refetch-after-change';

// The admin's tag supply: minting batches of tags and downloading what prints them.

/** The one query key of the admin feature: every batch, newest first. */
export const tagBatchesKey = ['admin', 'tag-batches'] as const;

// Ten thousand tags take the server longer than the usual 10 s to insert (the gateway waits 30 s for items) or to draw.
const MINT_TIMEOUT_MS = 40_000;
const DOWNLOAD_TIMEOUT_MS = 120_000;

export function useTagBatches() {
  const api = useApi();
  return useQuery({
    queryKey: tagBatchesKey,
    queryFn: async () => (await api.request<TagBatchList>('GET', '/admin/tag-batches')).batches,
  });
}

export function useMintTagBatch() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    // The key makes the POST safe to retry (a timeout, a 504 while thousands of tags are minted): the gateway answers a
    // repeat with the first batch, never a second one.
    mutationFn: ({ idempotencyKey, ...body }: CreateTagBatchBody & { idempotencyKey: string }) =>
      api.request<TagBatch>('POST', '/admin/tag-batches', { body, idempotencyKey, timeoutMs: MINT_TIMEOUT_MS }),
    onSuccess: () => refetchAfterChange(queryClient, { queryKey: tagBatchesKey }),
  });
}

/** What can be downloaded of a batch: its printable PDF, its codes as CSV, or one page of its sheet as SVG. */
export type TagBatchFile = { kind: 'pdf' } | { kind: 'csv' } | { kind: 'svg'; page: number };

function fileRoute(batchId: string, file: TagBatchFile): { path: string; query?: Record<string, number>; fallbackName: string } {
  const base = `/admin/tag-batches/${encodeURIComponent(batchId)}`;
  if (file.kind === 'pdf') return { path: `${base}/sheet.pdf`, fallbackName: `tag-batch-${batchId}.pdf` };
  if (file.kind === 'csv') return { path: `${base}/codes.csv`, fallbackName: `tag-batch-${batchId}.csv` };
  return { path: `${base}/sheet`, query: { page: file.page }, fallbackName: `tag-batch-${batchId}-page-${file.page}.svg` };
}

/** Downloads a batch's file with the token (a plain link would go without it) and saves it under the server's name. */
export function useDownloadTagBatchFile() {
  const api = useApi();
  return useMutation({
    mutationFn: async ({ batch, file }: { batch: Pick<TagBatchSummary, 'id'>; file: TagBatchFile }) => {
      const { path, query, fallbackName } = fileRoute(batch.id, file);
      const downloaded = await api.request<DownloadedFile>('GET', path, { query, responseType: 'file', timeoutMs: DOWNLOAD_TIMEOUT_MS });
      saveFile(downloaded, fallbackName);
    },
  });
}
