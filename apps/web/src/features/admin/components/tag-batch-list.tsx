import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TagBatchSummary } from '@homing/contracts';

import { FormError } from '../../../components/form/form-error';
import { errorKey, errorText } from '../../../lib/error-catalogue';
import { useFlash } from '../../../lib/flash';
import { formatRelativeTime } from '../../../lib/relative-time';
import { useDownloadTagBatchFile, useTagBatches, type TagBatchFile } from '../api';

/** Every batch, newest first: what it is, how much of it is activated, who minted it when, and its files. */
export function TagBatchList() {
  const { t } = useTranslation();
  const batches = useTagBatches();

  return (
    <section aria-labelledby="tag-batches-title" className="tag-batches">
      <h2 id="tag-batches-title">{t('admin.batches.title')}</h2>
      {batches.isPending && <p role="status">{t('common.loading')}</p>}
      {batches.isError && <FormError>{errorText(t, batches.error)}</FormError>}
      {batches.data?.length === 0 && <p className="intro">{t('admin.batches.empty')}</p>}
      {batches.data && batches.data.length > 0 && (
        <ul className="batch-grid">
          {batches.data.map((batch) => (
            <BatchCard key={batch.id} batch={batch} />
          ))}
        </ul>
      )}
    </section>
  );
}

function BatchCard({ batch }: { batch: TagBatchSummary }) {
  const { t, i18n } = useTranslation();
  const language = i18n.resolvedLanguage ?? 'en';
  const number = (value: number) => value.toLocaleString(language);
  const created = new Date(batch.created_at);
  const absolute = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' }).format(created);

  return (
    <li className="batch-card">
      <h3 className="batch-card__label">
        {batch.label}
      </h3>
      <dl className="batch-card__facts">
        <div>
          <dt>{t('admin.batches.tags')}</dt>
          <dd>{number(batch.count)}</dd>
        </div>
        <div>
          <dt>{t('admin.batches.activated')}</dt>
          <dd>{t('admin.batches.activatedOf', { claimed: number(batch.claimed), total: number(batch.count) })}</dd>
        </div>
        <div>
          <dt>{t('admin.batches.minted')}</dt>
          <dd>
            <time dateTime={batch.created_at} title={absolute}>
              {formatRelativeTime(created, language)}
            </time>{' '}
            <span className="batch-card__absolute">({absolute})</span>
          </dd>
        </div>
        <div>
          <dt>{t('admin.batches.mintedBy')}</dt>
          <dd className="batch-card__by">{batch.created_by ?? t('admin.batches.deletedAccount')}</dd>
        </div>
      </dl>
      <BatchDownloads batch={batch} />
    </li>
  );
}

function BatchDownloads({ batch }: { batch: TagBatchSummary }) {
  const { t } = useTranslation();
  const flash = useFlash();
  const download = useDownloadTagBatchFile();
  const [page, setPage] = useState(1);
  const pageId = useId();

  const busy = download.isPending;
  const start = (file: TagBatchFile) =>
    download.mutate({ batch, file }, { onError: (error) => flash.show('error', 'admin.batches.downloadFailed', { reason: { key: errorKey(error) } }) });
  // Named after what they do and for which batch: a screen reader lists many "PDF" buttons otherwise.
  const named = (text: string) => `${text}: ${batch.label}`;

  return (
    <div className="batch-card__downloads" role="group" aria-label={named(t('admin.batches.downloads'))}>
      <button type="button" className="button--secondary" disabled={busy} aria-label={named(t('admin.batches.pdf'))} onClick={() => start({ kind: 'pdf' })}>
        {t('admin.batches.pdf')}
      </button>
      <button type="button" className="button--secondary" disabled={busy} aria-label={named(t('admin.batches.csv'))} onClick={() => start({ kind: 'csv' })}>
        {t('admin.batches.csv')}
      </button>
      <span className="batch-card__svg">
        {batch.pages > 1 && (
          <>
            <label htmlFor={pageId}>{t('admin.batches.page')}</label>
            <select id={pageId} value={page} onChange={(event) => setPage(Number(event.target.value))}>
              {Array.from({ length: batch.pages }, (_, index) => (
                <option key={index + 1} value={index + 1}>
                  {t('admin.batches.pageOf', { page: index + 1, pages: batch.pages })}
                </option>
              ))}
            </select>
          </>
        )}
        <button
          type="button"
          className="button--secondary"
          disabled={busy}
          aria-label={named(t('admin.batches.svg'))}
          onClick={() => start({ kind: 'svg', page: Math.min(page, Math.max(batch.pages, 1)) })}
        >
          {t('admin.batches.svg')}
        </button>
      </span>
      {busy && (
        <span role="status" className="muted-inline">
          {t('admin.batches.downloading')}
        </span>
      )}
    </div>
  );
}
