import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import type { Scan } from '@homing/contracts';

import { FormError } from '../../../components/form/form-error';
import { errorText } from '../../../lib/error-catalogue';
import { useScanHistory } from '../api';

/** "Amsterdam, Netherlands": the country named in the reader's language; "Unknown place" when the lookup knew nothing. */
export function scanPlace(t: TFunction, scan: Pick<Scan, 'city' | 'country'>, language: string): string {
  const country = scan.country ? countryName(scan.country, language) : null;
  const parts = [scan.city, country].filter((part): part is string => !!part);
  return parts.length > 0 ? parts.join(', ') : t('scans.unknownPlace');
}

function countryName(code: string, language: string): string {
  try {
    return new Intl.DisplayNames([language], { type: 'region' }).of(code.toUpperCase()) ?? code;
  } catch {
    // Not a region code this browser knows: the code says more than nothing.
    return code;
  }
}

/** The owner's item page: when the tag's page was opened, roughly where and on what kind of device (never an address). */
export function ScanHistory({ code }: { code: string }) {
  const { t, i18n } = useTranslation();
  const scans = useScanHistory(code);
  const titleId = useId();
  const language = i18n.resolvedLanguage ?? 'en';
  const when = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' });

  return (
    <section className="scan-history" aria-labelledby={titleId}>
      <h2 id={titleId}>{t('scans.title')}</h2>
      <p className="muted">{t('scans.intro')}</p>
      {scans.isPending && <p role="status">{t('common.loading')}</p>}
      {scans.isError && <FormError>{errorText(t, scans.error)}</FormError>}
      {scans.data?.scans.length === 0 && <p>{t('scans.empty')}</p>}
      {scans.data && scans.data.scans.length > 0 && (
        <ul className="scan-history__list" aria-labelledby={titleId}>
          {scans.data.scans.map((scan, index) => (
            <li key={`${scan.scanned_at}-${index}`} className="scan-history__scan">
              <time dateTime={scan.scanned_at}>{when.format(new Date(scan.scanned_at))}</time>
              <span>{scanPlace(t, scan, language)}</span>
              <span className="muted">{t(`scans.device.${scan.device_kind}`)}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
